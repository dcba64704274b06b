//! The nvcc release number, parsed from `nvcc --version`.

use serde::{Deserialize, Serialize};

/// An nvcc release, e.g. `13.0.88`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct NvccVersion {
    /// Major release (13).
    pub major: u32,
    /// Minor release (0).
    pub minor: u32,
    /// Build number (88), 0 when nvcc does not print one.
    pub patch: u32,
}

impl NvccVersion {
    /// Reads the version from the text `nvcc --version` prints (`release 13.0, V13.0.88`).
    pub fn parse(text: &str) -> Option<Self> {
        if let Some(pos) = text.find(", V") {
            let rest = &text[pos + 3..];
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            let mut nums = rest[..end].split('.').map(|n| n.parse::<u32>());
            if let (Some(Ok(major)), Some(Ok(minor))) = (nums.next(), nums.next()) {
                let patch = nums.next().and_then(Result::ok).unwrap_or(0);
                return Some(NvccVersion {
                    major,
                    minor,
                    patch,
                });
            }
        }
        let pos = text.find("release ")?;
        let rest = &text[pos + 8..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let mut nums = rest[..end].split('.').map(|n| n.parse::<u32>());
        match (nums.next(), nums.next()) {
            (Some(Ok(major)), Some(Ok(minor))) => Some(NvccVersion {
                major,
                minor,
                patch: 0,
            }),
            _ => None,
        }
    }
}

impl std::fmt::Display for NvccVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_real_output() {
        let out = "nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n\
                   Built on Wed_Aug_20_01:58:59_PM_PDT_2025\nCuda compilation tools, release 13.0, V13.0.88\n\
                   Build cuda_13.0.r13.0/compiler.36424714_0\n";
        assert_eq!(
            NvccVersion::parse(out),
            Some(NvccVersion {
                major: 13,
                minor: 0,
                patch: 88
            })
        );
    }

    #[test]
    fn release_without_build_number() {
        let v = NvccVersion::parse("Cuda compilation tools, release 12.4").unwrap();
        assert_eq!((v.major, v.minor, v.patch), (12, 4, 0));
    }

    #[test]
    fn rejects_text_without_numbers() {
        assert_eq!(NvccVersion::parse("release x.y"), None);
        assert_eq!(NvccVersion::parse(""), None);
    }

    #[test]
    fn a_release_line_parses_to_a_version() {
        let v = NvccVersion::parse("Cuda compilation tools, release 13.0, V13.0.88\n").unwrap();
        assert_eq!((v.major, v.minor, v.patch), (13, 0, 88));
        assert_eq!(v.to_string(), "13.0.88");
    }

    #[test]
    fn text_without_a_release_is_no_version() {
        assert!(NvccVersion::parse("garbage").is_none());
    }
}

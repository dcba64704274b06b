//! What a run-time compilation produces: `sm_90` (a cubin), `compute_90` (PTX) or `lto_90`
//! (LTO-IR), with the `a`/`f` suffixes of architecture-specific targets.

use std::fmt;

use crate::code::object_code::CodeKind;
use crate::error::Error;

/// A compilation target, parsed from its name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Target {
    /// `sm`, `compute` or `lto`.
    pub kind: CodeKind,
    /// `90` for sm_90.
    pub number: u32,
    /// `""`, `"a"` or `"f"`.
    pub suffix: &'static str,
}

impl Target {
    /// Parses `sm_90`, `sm_90a`, `compute_120f`, `lto_90`.
    pub(crate) fn parse(name: &str) -> Result<Target, Error> {
        let bad = || Error::UnsupportedTarget {
            target: name.to_owned(),
            supported: "a name like `sm_90` (cubin), `compute_90` (PTX) or `lto_90` (LTO-IR)"
                .to_owned(),
        };
        let (prefix, rest) = name.split_once('_').ok_or_else(bad)?;
        let kind = match prefix {
            "sm" => CodeKind::Cubin,
            "compute" => CodeKind::Ptx,
            "lto" => CodeKind::LtoIr,
            _ => return Err(bad()),
        };
        let (digits, suffix) = match rest.strip_suffix('a') {
            Some(d) => (d, "a"),
            None => match rest.strip_suffix('f') {
                Some(d) => (d, "f"),
                None => (rest, ""),
            },
        };
        let number = digits.parse::<u32>().map_err(|_| bad())?;
        Ok(Target {
            kind,
            number,
            suffix,
        })
    }

    /// NVRTC's options for this target.
    pub(crate) fn options(&self) -> Vec<String> {
        let (n, s) = (self.number, self.suffix);
        match self.kind {
            CodeKind::Cubin => vec![format!("--gpu-architecture=sm_{n}{s}")],
            CodeKind::LtoIr => vec![format!("--gpu-architecture=compute_{n}{s}"), "-dlto".into()],
            _ => vec![format!("--gpu-architecture=compute_{n}{s}")],
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match self.kind {
            CodeKind::Cubin => "sm",
            CodeKind::LtoIr => "lto",
            _ => "compute",
        };
        write!(f, "{prefix}_{}{}", self.number, self.suffix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_pick_outputs() {
        for name in ["sm_90", "sm_90a", "compute_120f", "lto_80"] {
            assert_eq!(Target::parse(name).unwrap().to_string(), name);
        }
        assert_eq!(Target::parse("lto_90").unwrap().kind, CodeKind::LtoIr);
        assert_eq!(
            Target::parse("lto_90").unwrap().options(),
            ["--gpu-architecture=compute_90", "-dlto"]
        );
        assert_eq!(Target::parse("compute_75").unwrap().kind, CodeKind::Ptx);
    }

    #[test]
    fn bad_names_are_errors() {
        for name in ["sm90", "gfx_90", "sm_", "sm_x"] {
            assert!(
                matches!(Target::parse(name), Err(Error::UnsupportedTarget { .. })),
                "{name}"
            );
        }
    }
}

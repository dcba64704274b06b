//! GPU targets: names such as `sm_90`, `sm_90a`, `compute_120`, their nvcc
//! `-gencode` form, validation against what nvcc supports, and the default list.

use serde::{Deserialize, Serialize};

/// What an image holds: machine code for one GPU generation or PTX for the JIT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum TargetKind {
    /// SASS (`sm_XY`).
    Sass,
    /// PTX (`compute_XY`).
    Ptx,
}

/// One compilation target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Target {
    /// SASS or PTX.
    pub kind: TargetKind,
    /// Compute capability as a number (`90` for 9.0, `120` for 12.0).
    pub number: u32,
    /// `a` (arch-specific) or `f` (family-specific).
    pub suffix: Option<char>,
}

impl Target {
    /// The SASS target for a compute capability number.
    pub fn sass(number: u32) -> Self {
        Target {
            kind: TargetKind::Sass,
            number,
            suffix: None,
        }
    }

    /// The PTX target for a compute capability number.
    pub fn ptx(number: u32) -> Self {
        Target {
            kind: TargetKind::Ptx,
            number,
            suffix: None,
        }
    }

    /// The major compute capability (`9` for `sm_90`).
    pub fn major(&self) -> u32 {
        self.number / 10
    }

    /// The value of nvcc's `-gencode` option for this target.
    pub fn gencode(&self) -> String {
        format!("arch={},code={self}", self.virtual_arch())
    }

    /// The virtual architecture the image is compiled from (`compute_90a` for `sm_90a`):
    /// its device pass sees `__CUDA_ARCH__` of this number.
    pub fn virtual_arch(&self) -> String {
        let suffix = self.suffix.map(String::from).unwrap_or_default();
        format!("compute_{}{suffix}", self.number)
    }

    /// Checks the target against the SASS names `nvcc --list-gpu-code` printed.
    pub fn is_supported(&self, supported_sass: &[String]) -> bool {
        let base = format!("sm_{}", self.number);
        let suffix_ok = match self.suffix {
            None => true,
            Some('a') => self.number >= 90,
            Some('f') => self.number >= 100,
            Some(_) => false,
        };
        suffix_ok && supported_sass.contains(&base)
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let prefix = match self.kind {
            TargetKind::Sass => "sm",
            TargetKind::Ptx => "compute",
        };
        write!(f, "{prefix}_{}", self.number)?;
        if let Some(s) = self.suffix {
            write!(f, "{s}")?;
        }
        Ok(())
    }
}

/// A target name that is not of the form `sm_XY[a|f]` / `compute_XY[a|f]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadTargetName(pub String);

impl std::fmt::Display for BadTargetName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` is not a GPU target name (expected e.g. `sm_90` or `compute_120`)",
            self.0
        )
    }
}

impl std::error::Error for BadTargetName {}

impl std::str::FromStr for Target {
    type Err = BadTargetName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadTargetName(s.to_string());
        let name = s.trim();
        let (kind, rest) = if let Some(r) = name.strip_prefix("sm_") {
            (TargetKind::Sass, r)
        } else if let Some(r) = name.strip_prefix("compute_") {
            (TargetKind::Ptx, r)
        } else {
            return Err(bad());
        };
        let (digits, suffix) = match rest.char_indices().last() {
            Some((i, c @ ('a' | 'f'))) => (&rest[..i], Some(c)),
            _ => (rest, None),
        };
        if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let number = digits.parse().map_err(|_| bad())?;
        Ok(Target {
            kind,
            number,
            suffix,
        })
    }
}

/// The default target list: SASS for the lowest supported arch of every major
/// generation, plus PTX for the newest one (nvcc 13.0: sm_75, 80, 90, 100, 110, 120 +
/// compute_120).
pub fn default_targets(supported_sass: &[String]) -> Vec<Target> {
    let mut per_major: std::collections::BTreeMap<u32, u32> = Default::default();
    for name in supported_sass {
        if let Ok(t) = name.parse::<Target>()
            && t.kind == TargetKind::Sass
            && t.suffix.is_none()
        {
            let e = per_major.entry(t.major()).or_insert(t.number);
            *e = (*e).min(t.number);
        }
    }
    let mut out: Vec<Target> = per_major.values().map(|&n| Target::sass(n)).collect();
    if let Some(newest) = out.last().map(|t| t.number) {
        out.push(Target::ptx(newest));
    }
    out
}

/// Parses a comma- or space-separated list of target names.
pub fn parse_target_list(list: &str) -> Result<Vec<Target>, BadTargetName> {
    list.split([',', ' '])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nvcc13() -> Vec<String> {
        "sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_110 sm_103 sm_120 sm_121"
            .split(' ')
            .map(String::from)
            .collect()
    }

    #[test]
    fn default_list_for_nvcc_13() {
        let names: Vec<String> = default_targets(&nvcc13())
            .iter()
            .map(|t| t.to_string())
            .collect();
        assert_eq!(
            names,
            [
                "sm_75",
                "sm_80",
                "sm_90",
                "sm_100",
                "sm_110",
                "sm_120",
                "compute_120"
            ]
        );
    }

    #[test]
    fn names_round_trip() {
        for n in ["sm_75", "sm_90a", "sm_100f", "compute_120", "compute_90a"] {
            assert_eq!(n.parse::<Target>().unwrap().to_string(), n);
        }
    }

    #[test]
    fn bad_names_are_rejected() {
        for n in [
            "",
            "sm_",
            "sm_9x",
            "compute",
            "gfx90a",
            "sm_90b",
            "sm_123456",
            "SM_90",
        ] {
            assert!(n.parse::<Target>().is_err(), "{n}");
        }
    }

    #[test]
    fn suffix_rules() {
        let s = nvcc13();
        assert!("sm_90a".parse::<Target>().unwrap().is_supported(&s));
        assert!(!"sm_80a".parse::<Target>().unwrap().is_supported(&s));
        assert!("sm_100f".parse::<Target>().unwrap().is_supported(&s));
        assert!(!"sm_90f".parse::<Target>().unwrap().is_supported(&s));
        assert!(!"compute_91".parse::<Target>().unwrap().is_supported(&s));
    }

    #[test]
    fn empty_supported_list_gives_no_defaults() {
        assert!(default_targets(&[]).is_empty());
    }

    #[test]
    fn compute_names_are_ptx_targets() {
        assert_eq!(
            "compute_120".parse::<Target>().unwrap().kind,
            TargetKind::Ptx
        );
    }

    #[test]
    fn target_names_parse_with_their_suffix() {
        let t: Target = "sm_90a".parse().unwrap();
        assert_eq!(t.number, 90);
        assert_eq!(t.suffix, Some('a'));
        assert_eq!(t.gencode(), "arch=compute_90a,code=sm_90a");
        assert_eq!(t.to_string(), "sm_90a");
    }

    #[test]
    fn sass_targets_display_as_sm() {
        assert_eq!(Target::sass(80).to_string(), "sm_80");
    }

    #[test]
    fn ptx_targets_display_as_compute() {
        assert_eq!(Target::ptx(120).to_string(), "compute_120");
    }

    #[test]
    fn major_is_the_number_over_ten() {
        assert_eq!(Target::sass(120).major(), 12);
    }

    #[test]
    fn ptx_gencode_embeds_compute_code() {
        assert_eq!(
            Target::ptx(120).gencode(),
            "arch=compute_120,code=compute_120"
        );
    }

    #[test]
    fn virtual_arch_keeps_the_suffix() {
        assert_eq!(
            "sm_90a".parse::<Target>().unwrap().virtual_arch(),
            "compute_90a"
        );
        assert_eq!(Target::ptx(120).virtual_arch(), "compute_120");
    }

    #[test]
    fn sass_support_follows_the_list() {
        let supported = vec!["sm_80".to_string(), "sm_90".to_string()];
        assert!(Target::sass(90).is_supported(&supported));
        assert!(!Target::sass(91).is_supported(&supported));
    }

    #[test]
    fn non_nvidia_names_are_rejected() {
        assert!("gfx90a".parse::<Target>().is_err());
    }

    #[test]
    fn default_targets_skip_minor_variants_and_add_newest_ptx() {
        let codes: Vec<String> = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_120", "sm_121"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let names: Vec<String> = default_targets(&codes)
            .iter()
            .map(|t| t.to_string())
            .collect();
        assert_eq!(names, ["sm_75", "sm_80", "sm_90", "sm_120", "compute_120"]);
    }

    #[test]
    fn target_lists_split_on_commas_and_spaces() {
        let t = parse_target_list("sm_80, sm_90,compute_90").unwrap();
        assert_eq!(t.len(), 3);
    }
}

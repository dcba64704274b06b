//! The targets a module is built for: the module's own list, `KERNEL_BUILD_ARCHS` (a list
//! or `native`), else the toolkit's default list; and the architectures a reading without
//! nvcc assumes (`raw_arch_numbers`).

use crate::env::{self, Reporting};
use crate::error::Error;
use crate::model::request::ModuleRequest;
use crate::toolkit::{self, Target, Toolkit, parse_target_list};

/// The architectures a build without nvcc reads `#if __CUDA_ARCH__` for: the module's
/// targets, else the default list of nvcc 13 (the toolkit that would be used is unknown).
pub(super) fn raw_arch_numbers(req: &ModuleRequest) -> Vec<u32> {
    let mut numbers: Vec<u32> = match &req.archs {
        Some(names) => names
            .iter()
            .filter_map(|n| n.parse::<Target>().ok())
            .map(|t| t.number)
            .collect(),
        None => vec![75, 80, 90, 100, 110, 120],
    };
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// The targets a module is built for, and how they were chosen.
pub(super) struct Targets {
    pub(super) list: Vec<Target>,
    /// The toolkit's default list (nothing asked for).
    pub(super) default: bool,
    /// Why `native` found no GPU (the default list was taken instead).
    pub(super) no_native: Option<String>,
}

impl Targets {
    /// Whether a build of these targets that took `seconds` gets the note naming
    /// `KERNEL_BUILD_ARCHS=native`: only the default list, of several targets, built slowly.
    pub(super) fn slow(&self, seconds: f64) -> bool {
        self.default && self.list.len() > 1 && seconds > SLOW_BUILD_SECONDS
    }
}

/// A build of the default targets slower than this gets a note naming
/// `KERNEL_BUILD_ARCHS=native`.
const SLOW_BUILD_SECONDS: f64 = 10.0;

/// The targets of `req` for `toolkit`.
pub(super) fn choose(
    req: &ModuleRequest,
    toolkit: &Toolkit,
    reporting: Reporting,
) -> Result<Targets, Error> {
    let given = |list| Targets {
        list,
        default: false,
        no_native: None,
    };
    if let Some(names) = &req.archs {
        return toolkit.check_targets(names).map(given);
    }
    if let Some(list) = env::var(env::Var::ARCHS, reporting) {
        let list = list.to_string_lossy();
        if list.trim().eq_ignore_ascii_case("native") {
            return match toolkit::native_capabilities() {
                Ok(ccs) => toolkit
                    .check_targets(&toolkit::native_targets(&ccs))
                    .map(given),
                Err(why) => Ok(Targets {
                    list: toolkit.default_targets(),
                    default: false,
                    no_native: Some(why),
                }),
            };
        }
        let names: Vec<String> = match parse_target_list(&list) {
            Ok(ts) => ts.iter().map(Target::to_string).collect(),
            Err(bad) => {
                return Err(Error::UnknownArch {
                    arch: bad.0,
                    supported: toolkit.supported_sass().to_vec(),
                });
            }
        };
        return toolkit.check_targets(&names).map(given);
    }
    Ok(Targets {
        list: toolkit.default_targets(),
        default: true,
        no_native: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_slow_builds_of_the_default_targets_get_the_note() {
        let list: Vec<Target> = ["sm_80", "sm_90"]
            .iter()
            .map(|t| t.parse().unwrap())
            .collect();
        let targets = |default, n: usize| Targets {
            list: list[..n].to_vec(),
            default,
            no_native: None,
        };
        assert!(targets(true, 2).slow(46.0));
        assert!(!targets(true, 2).slow(9.0));
        assert!(!targets(false, 2).slow(46.0));
        assert!(!targets(true, 1).slow(46.0));
    }
}

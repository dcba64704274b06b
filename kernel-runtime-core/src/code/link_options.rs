//! [`LinkOptions`]: how a run-time link makes its code, the one set of options both linkers
//! take (nvJitLink in `linker`, the driver's in `culink`).

/// How to link: every option nvJitLink takes that changes the code, as a typed field.
///
/// ```
/// let o = cuda_kernel_runtime::LinkOptions { max_registers: Some(64), lineinfo: true, ..Default::default() };
/// assert_eq!(o.to_args("sm_90", false), ["-arch=sm_90", "-maxrregcount=64", "-lineinfo"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkOptions {
    /// Optimisation level of the final code generation (`-O0` … `-O3`; nvJitLink's default 3).
    pub opt_level: Option<u8>,
    /// The most registers a thread may use (`-maxrregcount`).
    pub max_registers: Option<u32>,
    /// Device debug information (`-g`).
    pub debug: bool,
    /// Line information for profilers (`-lineinfo`).
    pub lineinfo: bool,
    /// Flush denormals to zero in single precision (`-ftz`).
    pub ftz: Option<bool>,
    /// IEEE-rounded single-precision division (`-prec-div`).
    pub prec_div: Option<bool>,
    /// IEEE-rounded single-precision square root (`-prec-sqrt`).
    pub prec_sqrt: Option<bool>,
    /// Contract multiplies and adds into fused multiply-adds (`-fma`).
    pub fma: Option<bool>,
    /// The linker's report of what it did, in [`Linked::info_log`](crate::Linked::info_log) (`-verbose`).
    pub verbose: bool,
}

impl LinkOptions {
    /// nvJitLink's options for `arch` (`sm_90`); `lto` when LTO-IR is among the inputs.
    pub fn to_args(&self, arch: &str, lto: bool) -> Vec<String> {
        let mut a = vec![format!("-arch={arch}")];
        let flag = |name: &str, v: Option<bool>| v.map(|v| format!("-{name}={v}"));
        if lto {
            a.push("-lto".into());
        }
        a.extend(self.opt_level.map(|o| format!("-O{o}")));
        a.extend(self.max_registers.map(|r| format!("-maxrregcount={r}")));
        if self.debug {
            a.push("-g".into());
        }
        if self.lineinfo {
            a.push("-lineinfo".into());
        }
        a.extend(flag("ftz", self.ftz));
        a.extend(flag("prec-div", self.prec_div));
        a.extend(flag("prec-sqrt", self.prec_sqrt));
        a.extend(flag("fma", self.fma));
        if self.verbose {
            a.push("-verbose".into());
        }
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_become_arguments() {
        let o = LinkOptions {
            opt_level: Some(2),
            ftz: Some(true),
            fma: Some(false),
            debug: true,
            verbose: true,
            ..LinkOptions::default()
        };
        assert_eq!(
            o.to_args("sm_80", true),
            [
                "-arch=sm_80",
                "-lto",
                "-O2",
                "-g",
                "-ftz=true",
                "-fma=false",
                "-verbose"
            ]
        );
    }
}

//! Fatbin compression: every entry stored compressed by default (nvcc's
//! `--compress-mode=size`, Zstandard), because nvcc 13 on its own compresses only PTX and
//! stores SASS as is. The driver (R580, the minimum for CUDA 13) decompresses at load.
//!
//! Off (`compress = false`, `Build::compress(false)`, `KERNEL_BUILD_COMPRESS=0`): no flag,
//! nvcc's own default. A compression flag among the module's flags or
//! `KERNEL_BUILD_NVCC_FLAGS` is the user's choice and is left alone.
//!
//! Where nvFatbin assembles images (a device-linked module's linked ones, and a run's image
//! reassembled without the PTX text ptxas embeds), [`nvfatbin_options`] passes the same
//! choice to it; a file's per-architecture images are then joined as they are
//! (`super::container`).

use crate::env::{self, Reporting, Var};

/// The flag that compresses every entry.
pub(crate) const COMPRESS_FLAG: &str = "--compress-mode=size";

/// Whether `flag` is one of nvcc's compression flags (`--compress-mode=...`,
/// `-compress-mode ...`, `--no-compress`, `-Xfatbin=-compress-all`, ...).
fn is_compression_flag(flag: &str) -> bool {
    let bare = flag.trim_start_matches('-');
    bare.starts_with("compress-mode")
        || bare == "no-compress"
        || (bare.starts_with("Xfatbin") && flag.contains("compress"))
}

/// Whether the module's entries are compressed: its own setting, else
/// `KERNEL_BUILD_COMPRESS`, else on.
pub(crate) fn wanted(own: Option<bool>, reporting: Reporting) -> bool {
    own.or_else(|| env::switch(Var::COMPRESS, reporting))
        .unwrap_or(true)
}

/// `flags` with the compression flag added when `on` and no flag of the user's (in
/// `flags` or `env_flags`) chose already.
pub(crate) fn with_flag(mut flags: Vec<String>, env_flags: &[String], on: bool) -> Vec<String> {
    let chosen = flags
        .iter()
        .chain(env_flags)
        .any(|f| is_compression_flag(f));
    if on && !chosen {
        flags.push(COMPRESS_FLAG.to_owned());
    }
    flags
}

/// The `nvFatbinCreate` options that store entries as nvcc's compression `flags` would: a
/// module assembled by nvFatbin keeps the compression asked of nvcc.
pub(crate) fn nvfatbin_options(flags: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut previous = "";
    for flag in flags {
        let bare = flag.trim_start_matches('-');
        if let Some(mode) = bare.strip_prefix("compress-mode=") {
            out.push(format!("-compress-mode={mode}"));
            if mode == "size" {
                // nvcc's `size` compresses every entry; nvFatbin skips small ones without this.
                out.push("-compress-all".to_owned());
            }
        } else if bare == "no-compress" {
            out.push("-compress=false".to_owned());
        } else if flag.contains("-compress-all")
            && (bare.starts_with("Xfatbin") || previous.trim_start_matches('-') == "Xfatbin")
        {
            out.push("-compress-all".to_owned());
        }
        previous = flag;
    }
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn compression_is_added_once_unless_off_or_chosen_by_the_user() {
        assert_eq!(
            with_flag(strings(&["-O3"]), &[], true),
            ["-O3", COMPRESS_FLAG]
        );
        assert_eq!(with_flag(strings(&["-O3"]), &[], false), ["-O3"]);
        for own in [
            "--no-compress",
            "-no-compress",
            "--compress-mode=speed",
            "-compress-mode=none",
            "-Xfatbin=-compress-all",
        ] {
            assert_eq!(with_flag(strings(&[own]), &[], true), [own], "{own}");
            assert_eq!(
                with_flag(Vec::new(), &strings(&[own]), true),
                Vec::<String>::new(),
                "{own} in the environment's flags"
            );
        }
        assert!(!is_compression_flag("-Xfatbin=-g"));
    }

    #[test]
    fn nvcc_compression_flags_become_nvfatbin_options() {
        let opts = |v: &[&str]| nvfatbin_options(&strings(v));
        assert_eq!(
            opts(&["-O3", COMPRESS_FLAG]),
            ["-compress-mode=size", "-compress-all"]
        );
        assert_eq!(opts(&["--no-compress"]), ["-compress=false"]);
        assert_eq!(
            opts(&["-Xfatbin=-compress-all", "--compress-mode=speed"]),
            ["-compress-all", "-compress-mode=speed"]
        );
        assert_eq!(opts(&["-Xfatbin", "-compress-all"]), ["-compress-all"]);
        assert!(opts(&["-O3", "-lineinfo"]).is_empty());
    }

    #[test]
    fn the_module_decides_before_the_default() {
        assert!(
            wanted(None, Reporting::Silent)
                || env::switch(Var::COMPRESS, Reporting::Silent) == Some(false)
        );
        assert!(wanted(Some(true), Reporting::Silent));
        assert!(!wanted(Some(false), Reporting::Silent));
    }
}

//! Fatbin compression: every entry stored compressed by default (nvcc's
//! `--compress-mode=size`, Zstandard), because nvcc 13 on its own compresses only PTX and
//! stores SASS as is. The driver (R580, the minimum for CUDA 13) decompresses at load.
//!
//! Off (`compress = false`, `Build::compress(false)`, `KERNEL_BUILD_COMPRESS=0`): no flag,
//! nvcc's own default. A compression flag among the module's flags or
//! `KERNEL_BUILD_NVCC_FLAGS` is the user's choice and is left alone.
//!
//! What this reaches: the fatbins nvcc writes (whole modules and each file of a module of
//! several). A device-linked module (`rdc`, `lto`) is packed by nvFatbin after linking, with
//! nvFatbin's own default (the compression is not passed to it yet).

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
    fn the_module_decides_before_the_default() {
        assert!(
            wanted(None, Reporting::Silent)
                || env::switch(Var::COMPRESS, Reporting::Silent) == Some(false)
        );
        assert!(wanted(Some(true), Reporting::Silent));
        assert!(!wanted(Some(false), Reporting::Silent));
    }
}

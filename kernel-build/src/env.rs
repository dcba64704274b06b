//! Environment variables: every one the build reads is a [`Var`] of [`Var::ALL`], read
//! through [`var`] (or [`flag`]).
//!
//! In a build script every read prints `cargo:rerun-if-env-changed=NAME`, so Cargo
//! reruns the script when the variable changes; inside the `cuda_module!` macro nothing
//! is printed, and the generated module records every variable of [`Var::ALL`] with
//! `option_env!` instead, so rustc re-expands the macro when one changes. Both doors
//! therefore track exactly the variables this module lists (the crate docs show the
//! table, `env_table.md`, which a test keeps equal to the list).
//!
//! `PATH` is searched for `nvcc` and `python3` but not tracked (as cc does), and the
//! variables Cargo sets for build scripts (`OUT_DIR`, `CARGO_MANIFEST_DIR`) are read
//! through [`cargo_var`], which does not print anything.

use std::ffi::OsString;

/// Whether reads should be reported to Cargo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reporting {
    /// Running in a build script: print `cargo:rerun-if-env-changed` for each read.
    Cargo,
    /// Running in a macro, a tool or a test: print nothing.
    Silent,
}

/// A variable the build reads. Only the constants below exist, so a read of an unlisted
/// variable does not compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Var(&'static str);

/// The names of every variable the build reads, for a macro's expansion to track.
pub fn tracked_names() -> Vec<&'static str> {
    Var::ALL.iter().map(|v| v.name()).collect()
}

impl Var {
    /// Path of the nvcc to use.
    pub const NVCC: Var = Var("NVCC");
    /// Toolkit root.
    pub const CUDA_PATH: Var = Var("CUDA_PATH");
    /// Toolkit root (after `CUDA_PATH`).
    pub const CUDA_HOME: Var = Var("CUDA_HOME");
    /// A project-local folder of NVIDIA's nvcc wheels.
    pub const TOOLKIT_DIR: Var = Var("KERNEL_CUDA_TOOLKIT_DIR");
    /// Targets replacing the default list.
    pub const ARCHS: Var = Var("KERNEL_BUILD_ARCHS");
    /// Extra nvcc flags.
    pub const NVCC_FLAGS: Var = Var("KERNEL_BUILD_NVCC_FLAGS");
    /// Cache location.
    pub const CACHE_DIR: Var = Var("KERNEL_BUILD_CACHE_DIR");
    /// Neither read nor write the cache.
    pub const NO_CACHE: Var = Var("KERNEL_BUILD_NO_CACHE");
    /// Build without nvcc.
    pub const NO_DEVICE_CODE: Var = Var("KERNEL_BUILD_NO_DEVICE_CODE");
    /// Set by docs.rs: build without nvcc.
    pub const DOCS_RS: Var = Var("DOCS_RS");
    /// Print command lines, cache decisions and timings.
    pub const DEBUG: Var = Var("KERNEL_BUILD_DEBUG");
    /// Line tables in device code (on unless set to an off word).
    pub const LINE_INFO: Var = Var("KERNEL_BUILD_LINE_INFO");
    /// Debug builds of device code (`-G`).
    pub const DEVICE_DEBUG: Var = Var("KERNEL_BUILD_DEVICE_DEBUG");
    /// Compressed fatbin entries (on unless set to an off word).
    pub const COMPRESS: Var = Var("KERNEL_BUILD_COMPRESS");
    /// The PTX text embedded with line tables kept in each cubin (left out unless set to an
    /// on word).
    pub const PTX_TEXT: Var = Var("KERNEL_BUILD_PTX_TEXT");
    /// nvcc's `--split-compile` for the largest runs (on unless set to an off word).
    pub const SPLIT_COMPILE: Var = Var("KERNEL_BUILD_SPLIT_COMPILE");
    /// Path of `libnvJitLink.so`.
    pub const NVJITLINK: Var = Var("KERNEL_BUILD_NVJITLINK");
    /// Path of `libnvfatbin.so`.
    pub const NVFATBIN: Var = Var("KERNEL_BUILD_NVFATBIN");
    /// Where the files for editors go (`compile_commands.json`, shared types' headers).
    pub const EDITOR_DIR: Var = Var("KERNEL_BUILD_EDITOR_DIR");
    /// Set by Cargo for build scripts: the most nvcc runs at once.
    pub const NUM_JOBS: Var = Var("NUM_JOBS");
    /// A program nvcc's compilations run through.
    pub const NVCC_WRAPPER: Var = Var("KERNEL_BUILD_NVCC_WRAPPER");
    /// Cargo's compiler wrapper: nvcc runs through it too when it is sccache.
    pub const RUSTC_WRAPPER: Var = Var("RUSTC_WRAPPER");
    /// Base of the default cache and of the per-user nvcc wheels.
    pub const XDG_CACHE_HOME: Var = Var("XDG_CACHE_HOME");
    /// Base of the default cache and of the per-user nvcc wheels without `XDG_CACHE_HOME`.
    pub const HOME: Var = Var("HOME");

    /// Every variable the build reads, in the order of the documented table.
    pub const ALL: &'static [Var] = &[
        Var::NVCC,
        Var::CUDA_PATH,
        Var::CUDA_HOME,
        Var::TOOLKIT_DIR,
        Var::ARCHS,
        Var::NVCC_FLAGS,
        Var::CACHE_DIR,
        Var::NO_CACHE,
        Var::NO_DEVICE_CODE,
        Var::DOCS_RS,
        Var::DEBUG,
        Var::LINE_INFO,
        Var::DEVICE_DEBUG,
        Var::COMPRESS,
        Var::PTX_TEXT,
        Var::SPLIT_COMPILE,
        Var::NVJITLINK,
        Var::NVFATBIN,
        Var::EDITOR_DIR,
        Var::NUM_JOBS,
        Var::NVCC_WRAPPER,
        Var::RUSTC_WRAPPER,
        Var::XDG_CACHE_HOME,
        Var::HOME,
    ];

    /// The variable's name.
    pub const fn name(self) -> &'static str {
        self.0
    }
}

/// A variable no test environment sets.
#[cfg(test)]
pub(crate) const TEST_UNSET: Var = Var("KERNEL_BUILD_TEST_UNSET_VARIABLE");

/// Reads an environment variable, telling Cargo about it when `reporting` is
/// [`Reporting::Cargo`]. An empty value counts as unset.
pub fn var(v: Var, reporting: Reporting) -> Option<OsString> {
    if reporting == Reporting::Cargo {
        let mut pending = PENDING.lock().unwrap_or_else(|p| p.into_inner());
        if !pending.contains(&v.0) {
            pending.push(v.0);
        }
    }
    #[allow(clippy::disallowed_methods)] // this is the one place that reads the environment
    std::env::var_os(v.0).filter(|v| !v.is_empty())
}

/// The variables read for Cargo and not yet announced. They are printed after a build
/// (not as read), so that a failing build script's output is its error, not a screen of
/// `rerun-if-env-changed` lines; a failed build script runs again anyway.
static PENDING: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

/// Prints `cargo:rerun-if-env-changed` for every variable read for Cargo since the last
/// call, each once (build scripts only: the `build` feature).
#[cfg(feature = "build")]
pub(crate) fn announce() {
    let pending = std::mem::take(&mut *PENDING.lock().unwrap_or_else(|p| p.into_inner()));
    for name in pending {
        println!("cargo:rerun-if-env-changed={name}");
    }
}

/// Reads a flag variable: set and not `0`, `false`, `no` or `off`.
pub fn flag(v: Var, reporting: Reporting) -> bool {
    var(v, reporting).is_some_and(|v| {
        let v = v.to_string_lossy().trim().to_ascii_lowercase();
        !matches!(v.as_str(), "0" | "false" | "no" | "off")
    })
}

/// Reads a switch: `None` when unset, else whether it is on (as [`flag`] reads it).
pub fn switch(v: Var, reporting: Reporting) -> Option<bool> {
    var(v, reporting).map(|_| flag(v, reporting))
}

/// Reads a variable that Cargo sets itself (`OUT_DIR`, `CARGO_MANIFEST_DIR`, ...);
/// Cargo needs no `rerun-if-env-changed` for those.
pub fn cargo_var(name: &str) -> Option<OsString> {
    #[allow(clippy::disallowed_methods)] // Cargo-provided, never tracked
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// Reads `PATH` (searched, not tracked, as cc does).
pub(crate) fn path_var() -> Option<OsString> {
    cargo_var("PATH")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_read_for_cargo_are_announced_once() {
        var(TEST_UNSET, Reporting::Cargo);
        var(TEST_UNSET, Reporting::Cargo);
        let count = |p: &Vec<&str>| p.iter().filter(|n| **n == TEST_UNSET.0).count();
        assert_eq!(count(&PENDING.lock().unwrap()), 1);
        announce();
        assert_eq!(count(&PENDING.lock().unwrap()), 0);
    }

    #[test]
    fn unset_variable_reads_as_none() {
        assert!(var(TEST_UNSET, Reporting::Silent).is_none());
        assert!(!flag(TEST_UNSET, Reporting::Silent));
    }

    #[test]
    fn path_is_readable() {
        assert!(path_var().is_some());
    }

    /// The documented table names exactly the variables read, in the same order.
    #[test]
    fn the_documented_table_is_the_list() {
        let table = include_str!("env_table.md");
        let documented: Vec<&str> = table
            .lines()
            .skip(2)
            .filter_map(|row| row.split('|').nth(1))
            .flat_map(|cell| cell.split(','))
            .map(|name| name.trim().trim_matches('`'))
            .filter(|name| !name.is_empty())
            .collect();
        let listed: Vec<&str> = Var::ALL.iter().map(|v| v.name()).collect();
        assert_eq!(documented, listed);
    }

    /// Nothing outside this module reads the environment directly, so every read is one of
    /// the listed variables (and is tracked by both doors). The test double in `src/bin` is
    /// configured by its own variables and is no part of the build.
    #[test]
    fn every_read_goes_through_this_module() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut dirs = vec![root];
        let mut offenders = Vec::new();
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() && !path.ends_with("bin") {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("env.rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    if text.contains("env::var_os(") || text.contains("env::var(\"") {
                        offenders.push(path.display().to_string());
                    }
                }
            }
        }
        assert!(offenders.is_empty(), "{offenders:?}");
    }

    #[test]
    fn a_switch_is_unset_or_on_or_off() {
        assert_eq!(switch(TEST_UNSET, Reporting::Silent), None);
        assert_eq!(switch(Var("PATH"), Reporting::Silent), Some(true));
    }

    #[test]
    fn cargo_and_silent_reporting_differ() {
        assert_ne!(Reporting::Cargo, Reporting::Silent);
    }

    #[test]
    fn variables_carry_their_names_and_are_listed() {
        assert_eq!(Var::NVCC.name(), "NVCC");
        assert!(Var::ALL.contains(&Var::ARCHS));
    }

    #[test]
    fn var_reads_the_named_variable() {
        assert_eq!(var(Var::HOME, Reporting::Silent), cargo_var("HOME"));
    }

    #[test]
    fn a_flag_set_to_anything_but_an_off_word_is_on() {
        // `PATH` is set in every test environment, to a list of folders.
        assert!(flag(Var("PATH"), Reporting::Silent));
    }

    #[test]
    fn cargo_var_reads_what_cargo_sets() {
        assert_eq!(
            cargo_var("CARGO_MANIFEST_DIR"),
            Some(env!("CARGO_MANIFEST_DIR").into())
        );
    }
}

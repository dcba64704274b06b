//! Environment variables, all read through [`var`].
//!
//! In a build script every read prints `cargo:rerun-if-env-changed=NAME`, so Cargo
//! reruns the script when the variable changes; inside the `cuda_module!` macro nothing
//! is printed (the macro makes rustc track the same variables through `option_env!`).
//!
//! # Variables
//!
//! | variable | effect |
//! |---|---|
//! | `NVCC` | path of the nvcc to use (after an explicit `Build::nvcc`) |
//! | `CUDA_PATH`, `CUDA_HOME` | toolkit root; nvcc is `$CUDA_PATH/bin/nvcc` |
//! | `KERNEL_CUDA_TOOLKIT_DIR` | a project-local folder of NVIDIA's nvcc wheels (default: a `.cuda-toolkit` folder in the crate directory or any parent; the per-user folder of `kernel-inspect toolkit install` is searched after it) |
//! | `KERNEL_BUILD_ARCHS` | comma-separated targets replacing the default list, e.g. `sm_80,sm_90,compute_90` |
//! | `KERNEL_BUILD_NVCC_FLAGS` | extra nvcc flags, separated by spaces, appended after the builder's |
//! | `KERNEL_BUILD_CACHE_DIR` | cache location (default `$XDG_CACHE_HOME/kernel-build`, else `$HOME/.cache/kernel-build`) |
//! | `KERNEL_BUILD_NO_CACHE` | `1`: neither read nor write the cache |
//! | `KERNEL_BUILD_NO_DEVICE_CODE` | `1`: build without nvcc; stubs are generated from the raw source and loading reports that the binary has no device code |
//! | `DOCS_RS` | set by docs.rs; same effect as `KERNEL_BUILD_NO_DEVICE_CODE=1` |
//! | `KERNEL_BUILD_DEBUG` | `1`: print every nvcc command line, the cache decisions, and the time of each file of a module of several |
//! | `KERNEL_BUILD_NVJITLINK` | path of `libnvJitLink.so` for `rdc`/`lto` builds (default: the library beside nvcc) |
//! | `KERNEL_BUILD_NVFATBIN` | path of `libnvfatbin.so` for `rdc`/`lto` builds (default: the library beside nvcc) |
//! | `NUM_JOBS` | set by Cargo for build scripts: the most nvcc runs at once (with Cargo's jobserver, whose tokens each run takes) |
//! | `KERNEL_BUILD_NVCC_WRAPPER` | a program nvcc's compilations run through (`sccache`); empty or `none`: none |
//! | `RUSTC_WRAPPER` | when it is sccache and `KERNEL_BUILD_NVCC_WRAPPER` is not set, nvcc runs through it too |
//! | `XDG_CACHE_HOME`, `HOME` | locate the default cache and the per-user nvcc wheels (`kernel-build/cuda-toolkit` under it) |
//!
//! `PATH` is searched for `nvcc` and `python3` but not tracked (as cc does), and the
//! variables Cargo sets for build scripts (`OUT_DIR`, `CARGO_MANIFEST_DIR`) are read
//! through [`cargo_var`], which does not print anything.

use std::ffi::OsString;

/// Whether reads should be reported to Cargo.
///
/// ```
/// use kernel_build::env::Reporting;
/// assert_ne!(Reporting::Cargo, Reporting::Silent);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reporting {
    /// Running in a build script: print `cargo:rerun-if-env-changed` for each read.
    Cargo,
    /// Running in a macro, a tool or a test: print nothing.
    Silent,
}

/// Reads an environment variable, telling Cargo about it when `reporting` is
/// [`Reporting::Cargo`]. An empty value counts as unset.
///
/// ```
/// use kernel_build::env::{var, Reporting};
/// let _cache = var("KERNEL_BUILD_CACHE_DIR", Reporting::Silent);
/// ```
pub fn var(name: &str, reporting: Reporting) -> Option<OsString> {
    if reporting == Reporting::Cargo {
        println!("cargo:rerun-if-env-changed={name}");
    }
    #[allow(clippy::disallowed_methods)] // this is the one place that reads the environment
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// Reads a flag variable: set and not `0`, `false`, `no` or `off`.
///
/// ```
/// use kernel_build::env::{flag, Reporting};
/// let _no_cache = flag("KERNEL_BUILD_NO_CACHE", Reporting::Silent);
/// ```
pub fn flag(name: &str, reporting: Reporting) -> bool {
    var(name, reporting).is_some_and(|v| {
        let v = v.to_string_lossy().trim().to_ascii_lowercase();
        !matches!(v.as_str(), "0" | "false" | "no" | "off")
    })
}

/// Reads a variable that Cargo sets itself (`OUT_DIR`, `CARGO_MANIFEST_DIR`, ...);
/// Cargo needs no `rerun-if-env-changed` for those.
///
/// ```
/// let _dir = kernel_build::env::cargo_var("CARGO_MANIFEST_DIR");
/// ```
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
    fn unset_variable_reads_as_none() {
        assert!(var("KERNEL_BUILD_TEST_SURELY_UNSET_VARIABLE", Reporting::Silent).is_none());
        assert!(!flag(
            "KERNEL_BUILD_TEST_SURELY_UNSET_VARIABLE",
            Reporting::Silent
        ));
    }

    #[test]
    fn path_is_readable() {
        assert!(path_var().is_some());
    }
}

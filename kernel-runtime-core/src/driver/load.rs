//! Whether a CUDA library can be reached without a panic, and whether the driver has been
//! initialised.
//!
//! cudarc reaches `libcuda` (and NVRTC) in the mode its Cargo features pick, and any crate of the
//! build may pick it: `dynamic-loading` (ours by default) opens the library by name on the first
//! call and panics when it is missing; `dynamic-linking` (candle's choice) and `static-linking`
//! link the driver when the program starts. A crate cannot read a dependency's features, so
//! [`reachable`] asks what holds in every mode. The device's `ensure_driver` asks it before the
//! first driver call and records here, with [`mark_loaded`], that the driver answered.

use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::sync::atomic::{AtomicBool, Ordering};

use cuda_kernel_objects::native::{Library, in_process};

/// Set once `cuInit` has succeeded: only then may driver functions (even `cuGetErrorString`) run.
static LOADED: AtomicBool = AtomicBool::new(false);

/// Whether the driver library has been loaded and initialised by this process.
pub(crate) fn is_loaded() -> bool {
    LOADED.load(Ordering::Acquire)
}

/// Records that `cuInit` succeeded: from now on driver functions may be called.
pub(crate) fn mark_loaded() {
    LOADED.store(true, Ordering::Release);
}

/// Whether this build's cudarc finds the library that defines `symbol` on its first call into
/// it, instead of panicking, in whichever linking mode the build's features picked:
///
/// - this crate's own `dynamic-linking` or `static-linking` feature put cudarc in that mode: the
///   library is part of the program (the loader refused to start it otherwise);
/// - the symbol is already in the process's global scope (cudarc's `dynamic-linking` or
///   `static-linking` turned on by another crate: the loader mapped the library at start-up):
///   cudarc's calls resolve to it;
/// - otherwise cudarc opens the library by name on the first call (`dynamic-loading`): it is
///   reachable when one of `names` opens. Each name is one cudarc 0.19 tries as well, so a name
///   that opens here means cudarc's search finds a library too. The handles are closed again.
pub(crate) fn reachable(symbol: &str, names: &[String]) -> bool {
    if cfg!(any(feature = "dynamic-linking", feature = "static-linking")) {
        return true;
    }
    // Loading a CUDA library runs no initialiser with preconditions; the handle is dropped
    // (closed) at once.
    in_process(symbol) || Library::open(symbol, names).is_ok()
}

/// The names the driver library is installed under (`libcuda.so.1` and its development link;
/// `nvcuda.dll`), each one cudarc tries too.
pub(crate) fn driver_names() -> Vec<String> {
    vec![
        format!("{DLL_PREFIX}cuda{DLL_SUFFIX}.1"),
        format!("{DLL_PREFIX}cuda{DLL_SUFFIX}"),
        format!("{DLL_PREFIX}nvcuda{DLL_SUFFIX}"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbol_of_the_process_is_reachable() {
        // The C library is linked into every test binary; no name needs to open.
        assert!(reachable("malloc", &[]));
    }

    #[test]
    fn nothing_is_reachable_without_the_symbol_or_a_name() {
        if cfg!(any(feature = "dynamic-linking", feature = "static-linking")) {
            return; // linked in by construction
        }
        assert!(!reachable(
            "kernel_rs_no_such_symbol",
            &["libkernel-rs-no-such-library.so.0".to_owned()]
        ));
    }

    #[test]
    fn driver_names_are_the_installed_ones() {
        let names = driver_names();
        if cfg!(target_os = "linux") {
            assert_eq!(names[0], "libcuda.so.1");
        }
        if cfg!(windows) {
            assert!(names.iter().any(|n| n == "nvcuda.dll"));
        }
    }
}

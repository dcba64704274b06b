//! Finding the driver without a panic.
//!
//! cudarc reaches `libcuda` (and NVRTC) in the mode its Cargo features pick, and any crate of the
//! build may pick it: `dynamic-loading` (ours by default) opens the library by name on the first
//! call and panics when it is missing; `dynamic-linking` (candle's choice) and `static-linking`
//! link the driver when the program starts. A crate cannot read a dependency's features, so
//! [`reachable`] asks what holds in every mode, and every path into the driver starts with
//! [`ensure_driver`], which checks once that the library is reachable, then initialises the
//! driver and maps what it reports to [`Error::NoDriver`] or [`Error::NoDevice`].

use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use cudarc::driver::{CudaContext, DriverError, sys};

use crate::error::Error;

/// Set once `cuInit` has succeeded: only then may driver functions (even `cuGetErrorString`) run.
static LOADED: AtomicBool = AtomicBool::new(false);

/// Whether the driver library has been loaded and initialised by this process.
pub(crate) fn is_loaded() -> bool {
    LOADED.load(Ordering::Acquire)
}

/// Checks that a driver is present and initialised; returns the number of devices.
///
/// Safe to call from many threads and many times: the library probe and `cuInit` run once.
pub(crate) fn ensure_driver() -> Result<usize, Error> {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    let present = *PRESENT.get_or_init(|| reachable("cuInit", &driver_names()));
    if !present {
        return Err(Error::NoDriver {
            reason:
                "the CUDA driver library (libcuda.so) was not found; install the NVIDIA driver \
                     or add its directory to LD_LIBRARY_PATH"
                    .to_owned(),
        });
    }
    // The library is there: from here on cudarc reports failures as values.
    match CudaContext::device_count() {
        Ok(n) => {
            LOADED.store(true, Ordering::Release);
            Ok(usize::try_from(n).unwrap_or(0))
        }
        Err(e) => {
            if e.0 == sys::CUresult::CUDA_ERROR_NO_DEVICE {
                // cuInit succeeded far enough for the driver's own calls to work.
                LOADED.store(true, Ordering::Release);
            }
            Err(init_error(e))
        }
    }
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
    in_process(symbol)
        || names.iter().any(|name| {
            // SAFETY: loading a CUDA library runs no initialiser with preconditions; the handle
            // is dropped (closed) at once.
            unsafe { libloading::Library::new(name) }.is_ok()
        })
}

/// Whether `symbol` resolves in the program and the libraries it was linked with (or loaded
/// globally); libraries opened privately, as cudarc's loader opens them, are not searched.
fn in_process(symbol: &str) -> bool {
    #[cfg(unix)]
    {
        let this = libloading::os::unix::Library::this();
        // SAFETY: only the symbol's address is looked up; nothing is called through it.
        unsafe { this.get::<*const ()>(symbol) }.is_ok()
    }
    #[cfg(windows)]
    {
        libloading::os::windows::Library::this().is_ok_and(|this| {
            // SAFETY: as above.
            unsafe { this.get::<*const ()>(symbol) }.is_ok()
        })
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = symbol;
        false
    }
}

/// The names the driver library is installed under (`libcuda.so.1` and its development link;
/// `nvcuda.dll`), each one cudarc tries too.
fn driver_names() -> Vec<String> {
    vec![
        format!("{DLL_PREFIX}cuda{DLL_SUFFIX}.1"),
        format!("{DLL_PREFIX}cuda{DLL_SUFFIX}"),
        format!("{DLL_PREFIX}nvcuda{DLL_SUFFIX}"),
    ]
}

/// Maps a failing `cuInit`/`cuDeviceGetCount` to the error a user can act on.
fn init_error(e: DriverError) -> Error {
    use sys::CUresult as R;
    match e.0 {
        R::CUDA_ERROR_NO_DEVICE => Error::NoDevice {
            ordinal: 0,
            count: 0,
        },
        R::CUDA_ERROR_STUB_LIBRARY => Error::NoDriver {
            reason: "the toolkit's stub libcuda.so was loaded instead of the driver's; remove \
                     `.../lib64/stubs` from LD_LIBRARY_PATH"
                .to_owned(),
        },
        R::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH => Error::NoDriver {
            reason: "the driver library does not match the kernel module's version (reboot or \
                     reinstall the driver)"
                .to_owned(),
        },
        code => Error::NoDriver {
            reason: format!("cuInit failed with {code:?}"),
        },
    }
}

/// The CUDA version the driver supports, as `(major, minor)`, e.g. `(13, 0)`.
pub(crate) fn driver_version() -> Result<(u32, u32), Error> {
    ensure_driver()?;
    let mut v: std::ffi::c_int = 0;
    // SAFETY: the driver is initialised (checked above) and `v` is a valid out-pointer.
    unsafe { sys::cuDriverGetVersion(&mut v) }
        .result()
        .map_err(|e| Error::driver("cuDriverGetVersion", e))?;
    let v = u32::try_from(v).unwrap_or(0);
    Ok((v / 1000, (v % 1000) / 10))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stub_library_is_named() {
        let e = init_error(DriverError(sys::CUresult::CUDA_ERROR_STUB_LIBRARY));
        assert!(
            matches!(e, Error::NoDriver { ref reason } if reason.contains("stub")),
            "{e:?}"
        );
    }

    #[test]
    fn no_device_maps_to_no_device() {
        let e = init_error(DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE));
        assert!(matches!(e, Error::NoDevice { count: 0, .. }), "{e:?}");
    }

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

    #[test]
    fn probing_never_panics() {
        // Either a driver is here (GPU machine) or the probe says why not; it must not panic.
        match ensure_driver() {
            Ok(_) => assert!(is_loaded()),
            Err(Error::NoDriver { .. } | Error::NoDevice { .. }) => {}
            Err(other) => panic!("unexpected error {other:?}"),
        }
    }
}

//! Finding the driver without a panic.
//!
//! cudarc opens `libcuda` lazily on its first driver call and panics when the library is missing.
//! Every path into the driver therefore starts with [`ensure_driver`], which checks for the
//! library once (without loading it for good), then initialises the driver and maps what it
//! reports to [`Error::NoDriver`] or [`Error::NoDevice`].

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
    // SAFETY: `is_culib_present` only tries to dlopen the candidate names and drops the handles.
    let present = *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() });
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
    fn probing_never_panics() {
        // Either a driver is here (GPU machine) or the probe says why not; it must not panic.
        match ensure_driver() {
            Ok(_) => assert!(is_loaded()),
            Err(Error::NoDriver { .. } | Error::NoDevice { .. }) => {}
            Err(other) => panic!("unexpected error {other:?}"),
        }
    }
}

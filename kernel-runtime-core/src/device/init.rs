//! Initialising the driver without a panic.
//!
//! Every path into the driver starts with [`ensure_driver`], which checks once that the
//! library is reachable in whichever linking mode the build picked (`driver::load`), then
//! initialises the driver and maps what it reports to [`Error::NoDriver`] or
//! [`Error::NoDevice`].

use std::sync::OnceLock;

use cudarc::driver::{CudaContext, DriverError, sys};

use crate::driver;
use crate::driver::load::{driver_names, mark_loaded, reachable};
use crate::error::Error;

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
            mark_loaded();
            Ok(usize::try_from(n).unwrap_or(0))
        }
        Err(e) => {
            if e.0 == sys::CUresult::CUDA_ERROR_NO_DEVICE {
                // cuInit succeeded far enough for the driver's own calls to work.
                mark_loaded();
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
    // SAFETY: the driver is initialised (checked above).
    let v = unsafe { driver::device::get_version() }
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
            Ok(_) => assert!(driver::load::is_loaded()),
            Err(Error::NoDriver { .. } | Error::NoDevice { .. }) => {}
            Err(other) => panic!("unexpected error {other:?}"),
        }
    }
}

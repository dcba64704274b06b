//! Driver failures as [`Error`]s: kernel faults told apart from other codes, the
//! driver's own description, and the shorthand that names the failing call.

use cudarc::driver::{DriverError, sys::CUresult};

use super::Error;

/// Codes that mean a kernel faulted and the context is lost.
pub(super) const FAULTS: [CUresult; 8] = [
    CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
    CUresult::CUDA_ERROR_LAUNCH_FAILED,
    CUresult::CUDA_ERROR_MISALIGNED_ADDRESS,
    CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION,
    CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE,
    CUresult::CUDA_ERROR_INVALID_PC,
    CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR,
    CUresult::CUDA_ERROR_ASSERT,
];

impl Error {
    /// Turns a driver error from `call` into an [`Error`], naming kernel faults.
    ///
    /// ```
    /// use cuda_kernel_runtime::Error;
    /// use cuda_kernel_runtime::cudarc::driver::{DriverError, sys::CUresult};
    /// let e = Error::driver("cuCtxSynchronize", DriverError(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS));
    /// assert!(matches!(e, Error::KernelFault { ref name, .. } if name == "CUDA_ERROR_ILLEGAL_ADDRESS"));
    /// ```
    pub fn driver(call: &'static str, err: DriverError) -> Self {
        let code = err.0;
        let name = format!("{code:?}");
        let message = describe(err);
        if FAULTS.contains(&code) {
            Error::KernelFault {
                call,
                code: code as u32,
                name,
                message,
            }
        } else {
            Error::Driver {
                call,
                code: code as u32,
                name,
                message,
            }
        }
    }

    /// The driver's code when this error came from the driver.
    ///
    /// ```
    /// use cuda_kernel_runtime::Error;
    /// assert_eq!(Error::NoDevice { ordinal: 0, count: 0 }.driver_code(), None);
    /// ```
    pub fn driver_code(&self) -> Option<u32> {
        match self {
            Error::Driver { code, .. } | Error::KernelFault { code, .. } => Some(*code),
            _ => None,
        }
    }
}

impl From<DriverError> for Error {
    /// For cudarc calls made directly (e.g. `PinnedHostSlice::as_slice`), so `?` works; the
    /// call is not known, so it is named generically.
    fn from(err: DriverError) -> Self {
        Error::driver("CUDA driver call", err)
    }
}

/// The driver's text for `err`, asked only once the driver library is known to be loaded (asking
/// without it would make cudarc panic).
fn describe(err: DriverError) -> String {
    if !crate::driver::load::is_loaded() {
        return "no description: the driver is not loaded".to_owned();
    }
    match err.error_string() {
        Ok(s) => s.to_string_lossy().into_owned(),
        Err(_) => "no description from the driver".to_owned(),
    }
}

/// Shorthand: maps a cudarc result, naming the call.
pub(crate) trait DriverResultExt<T> {
    /// Maps `Err(DriverError)` to [`Error::driver`] with `call`.
    fn call(self, call: &'static str) -> Result<T, Error>;
}

impl<T> DriverResultExt<T> for Result<T, DriverError> {
    #[inline]
    fn call(self, call: &'static str) -> Result<T, Error> {
        self.map_err(|e| Error::driver(call, e))
    }
}

//! Driver failures as [`Error`]s: kernel faults told apart from other codes (a failed device
//! `assert` apart from the other faults), the driver's own description, and the shorthand that
//! names the failing call.
//!
//! A fault's error names the kernel launched most recently from the calling thread (the
//! driver does not say which kernel faulted), and before it is made the C streams are
//! flushed: during the synchronizing call the driver writes what kernels printed with
//! `printf` to C's `stdout`, whose buffer, on a pipe, C would otherwise hold until the process
//! exits (and lose if it aborts). The R580 driver flushes it itself; flushing here makes the
//! order hold whatever the driver does, and puts out what the program's own C code left
//! buffered too. (A failed `assert`'s message goes to `stderr`, which C does not buffer.)

use cudarc::driver::{DriverError, sys::CUresult};

use super::Error;

/// Codes that mean a kernel faulted and the context is lost (`CUDA_ERROR_ASSERT` becomes
/// [`Error::DeviceAssert`], the others [`Error::KernelFault`]).
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
    /// Turns a driver error from `call` into an [`Error`], naming kernel faults: a failed
    /// device `assert` is [`Error::DeviceAssert`], another fault [`Error::KernelFault`], both
    /// naming the kernel this thread launched last, after C's output streams are flushed (so
    /// that what kernels printed comes first).
    ///
    /// ```
    /// use cuda_kernel_runtime::Error;
    /// use cuda_kernel_runtime::cudarc::driver::{DriverError, sys::CUresult};
    /// let e = Error::driver("cuCtxSynchronize", DriverError(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS));
    /// assert!(matches!(e, Error::KernelFault { ref name, .. } if name == "CUDA_ERROR_ILLEGAL_ADDRESS"));
    /// let e = Error::driver("cuCtxSynchronize", DriverError(CUresult::CUDA_ERROR_ASSERT));
    /// assert!(matches!(e, Error::DeviceAssert { call: "cuCtxSynchronize", .. }));
    /// ```
    pub fn driver(call: &'static str, err: DriverError) -> Self {
        let code = err.0;
        if FAULTS.contains(&code) {
            return fault(call, err);
        }
        Error::Driver {
            call,
            code: code as u32,
            name: format!("{code:?}"),
            message: describe(err),
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
            Error::DeviceAssert { .. } => Some(CUresult::CUDA_ERROR_ASSERT as u32),
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

/// The error for a fault code: what kernels printed is flushed first, and the kernel this
/// thread launched last is named.
#[cold]
#[inline(never)]
fn fault(call: &'static str, err: DriverError) -> Error {
    flush_c_stdio();
    let kernel = crate::driver::last_launch::last().describe();
    let code = err.0;
    if code == CUresult::CUDA_ERROR_ASSERT {
        return Error::DeviceAssert { call, kernel };
    }
    Error::KernelFault {
        call,
        code: code as u32,
        name: format!("{code:?}"),
        message: describe(err),
        kernel,
    }
}

/// Flushes every C output stream, `stdout` above all: device `printf` output reaches the host
/// through it, and the flush puts it before whatever the program prints about the error.
fn flush_c_stdio() {
    // SAFETY: `fflush(NULL)` flushes all open output streams; it takes each stream's lock and
    // touches no memory of ours.
    unsafe { libc::fflush(std::ptr::null_mut()) };
}

/// The parenthesis of a fault's message that names the kernel.
pub(super) fn launched(kernel: &Option<String>) -> String {
    match kernel {
        Some(k) => format!("the kernel last launched from this thread: {k}"),
        None => "no kernel was launched from this thread, so none can be named".to_owned(),
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

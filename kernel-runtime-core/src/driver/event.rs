//! Events, through cudarc's checked layer: recording, waiting on the host, destroying
//! (creating an event to share between processes is `ipc`'s).

use cudarc::driver::{DriverError, result, sys};

/// `cuEventRecord`, through cudarc's `result::event::record`.
///
/// # Safety
/// As the driver asks of `cuEventRecord`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn record(event: sys::CUevent, stream: sys::CUstream) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::event::record(event, stream) }
}

/// `cuEventSynchronize`, through cudarc's `result::event::synchronize`.
///
/// # Safety
/// As the driver asks of `cuEventSynchronize`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn synchronize(event: sys::CUevent) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::event::synchronize(event) }
}

/// `cuEventDestroy`, through cudarc's `result::event::destroy`.
///
/// # Safety
/// As the driver asks of `cuEventDestroy`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn destroy(event: sys::CUevent) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::event::destroy(event) }
}

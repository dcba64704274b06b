//! Streams, through cudarc's checked layer: creating and destroying them, ordering one after
//! an event, ending and asking about a capture, and the context's range of priorities
//! (beginning a capture into a graph is `graph`'s).

pub(crate) use cudarc::driver::result::stream::StreamKind;
use cudarc::driver::{DriverError, result, sys};

/// `cuStreamCreate`, through cudarc's `result::stream::create`.
#[inline]
pub(crate) fn create(kind: StreamKind) -> Result<sys::CUstream, DriverError> {
    result::stream::create(kind)
}

/// `cuCtxGetStreamPriorityRange`, through cudarc's `result::stream::get_priority_range`.
#[inline]
pub(crate) fn get_priority_range() -> Result<(i32, i32), DriverError> {
    result::stream::get_priority_range()
}

/// `cuStreamDestroy`, through cudarc's `result::stream::destroy`.
///
/// # Safety
/// As the driver asks of `cuStreamDestroy`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn destroy(stream: sys::CUstream) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::stream::destroy(stream) }
}

/// `cuStreamWaitEvent`, through cudarc's `result::stream::wait_event`.
///
/// # Safety
/// As the driver asks of `cuStreamWaitEvent`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn wait_event(
    stream: sys::CUstream,
    event: sys::CUevent,
    flags: sys::CUevent_wait_flags,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::stream::wait_event(stream, event, flags) }
}

/// `cuStreamEndCapture`, through cudarc's `result::stream::end_capture`.
///
/// # Safety
/// As the driver asks of `cuStreamEndCapture`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn end_capture(stream: sys::CUstream) -> Result<sys::CUgraph, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::stream::end_capture(stream) }
}

/// `cuStreamIsCapturing`, through cudarc's `result::stream::is_capturing`.
///
/// # Safety
/// As the driver asks of `cuStreamIsCapturing`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn is_capturing(
    stream: sys::CUstream,
) -> Result<sys::CUstreamCaptureStatus, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::stream::is_capturing(stream) }
}

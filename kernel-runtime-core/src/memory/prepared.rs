//! [`PreparedBuffer`]: one use of device memory on a stream, prepared (the stream waits for
//! the buffer's pending work) and finished once the work using it is queued (the buffer
//! records the use, so that later work on other streams waits for it). Copies (`buffers`,
//! `copy3d`, `peer`, `pinned`) and kernel launches (`launch::args`, which passes the address
//! as a parameter) use buffers through it.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaEvent, CudaStream, SyncOnDrop};

use crate::error::{DriverResultExt, Error};
use crate::memory::uses::TrackedUse;

/// A prepared device buffer: its address, and what to record once the launch is queued (the
/// buffer's event for cudarc's buffers, the use for the runtime's tracked ones).
pub struct PreparedBuffer<'a> {
    ptr: CUdeviceptr,
    after: After<'a>,
}

/// What a prepared buffer records after the launch.
enum After<'a> {
    /// cudarc's event (and the runtime's own page-locked kinds).
    Event {
        record: Option<&'a CudaEvent>,
        /// Record even in single-stream mode: the buffer's host accessors wait on the event
        /// (managed memory).
        always: bool,
    },
    /// A use of a [`TrackedBuffer`](crate::TrackedBuffer).
    Tracked(TrackedUse<'a>),
}

impl<'a> PreparedBuffer<'a> {
    /// A buffer at `ptr` whose `record` event is recorded after the launch (in single-stream
    /// mode too when `always`).
    pub(crate) fn new(ptr: CUdeviceptr, record: Option<&'a CudaEvent>, always: bool) -> Self {
        PreparedBuffer {
            ptr,
            after: After::Event { record, always },
        }
    }

    /// A tracked buffer at `ptr` whose use is recorded after the launch.
    pub(crate) fn tracked(ptr: CUdeviceptr, used: TrackedUse<'a>) -> Self {
        PreparedBuffer {
            ptr,
            after: After::Tracked(used),
        }
    }

    /// The device address.
    pub(crate) fn addr(&self) -> CUdeviceptr {
        self.ptr
    }

    /// Where the address is held: what a kernel parameter of this buffer points to (valid
    /// while `self` is neither moved nor dropped).
    #[inline]
    pub(crate) fn addr_ptr(&self) -> *mut c_void {
        std::ptr::from_ref(&self.ptr).cast_mut().cast()
    }

    /// Records the use on `stream` once the work using the buffer is queued: the buffer's
    /// event (in multi-stream mode, or always when asked), or the tracked buffer's use.
    #[inline]
    pub(crate) fn finish(self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        match self.after {
            After::Event {
                record: Some(event),
                always,
            } if always || stream.context().is_managing_stream_synchronization() => {
                event.record(stream).call("cuEventRecord")
            }
            After::Event { .. } => Ok(()),
            After::Tracked(used) => {
                used.finish();
                Ok(())
            }
        }
    }
}

/// Takes the address and the event out of cudarc's guard, leaving the guard inert.
///
/// # Safety
/// The event in `guard` must live for `'a`: it must belong to a buffer borrowed for `'a`.
/// (cudarc ties the guard's lifetime to the stream's borrow as well, which is shorter here.)
#[inline]
pub(crate) unsafe fn split<'a>(ptr: CUdeviceptr, guard: SyncOnDrop<'_>) -> PreparedBuffer<'a> {
    // SAFETY: forwarded to the caller.
    unsafe { split_with(ptr, guard, false) }
}

/// [`split`], recording after the launch even in single-stream mode when `always`.
///
/// # Safety
/// As [`split`].
#[inline]
pub(crate) unsafe fn split_with<'a>(
    ptr: CUdeviceptr,
    mut guard: SyncOnDrop<'_>,
    always: bool,
) -> PreparedBuffer<'a> {
    let event = match &mut guard {
        SyncOnDrop::Record(target) => target.take().map(|(event, _)| std::ptr::from_ref(event)),
        SyncOnDrop::Sync(target) => {
            target.take();
            None
        }
    };
    drop(guard);
    // SAFETY: the caller guarantees the event outlives `'a`.
    let record = event.map(|e| unsafe { &*e });
    PreparedBuffer::new(ptr, record, always)
}

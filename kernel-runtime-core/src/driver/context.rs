//! The thread's current context, kept across work that may change it: cudarc's streams and
//! events, and the runtime's own handles, make their context current when they are destroyed
//! and leave it so. A handle dropped on a thread that had bound another device's context (the
//! last use of another thread's stream, say) would otherwise leave the thread's next call,
//! made for its own device, running in that context: a copy of a buffer allocated there,
//! from the default stream, then named memory of the wrong device.

use cudarc::driver::{result, sys};

/// The context current on this thread when it was made, made current again when it is
/// dropped if it no longer is. Reading costs one `cuCtxGetCurrent`; nothing is kept when no
/// context was current (or the driver cannot say).
pub(crate) struct KeepCurrent(Option<sys::CUcontext>);

impl KeepCurrent {
    /// Notes the thread's current context.
    pub(crate) fn new() -> KeepCurrent {
        KeepCurrent(result::ctx::get_current().ok().flatten())
    }
}

impl Drop for KeepCurrent {
    fn drop(&mut self) {
        let Some(ctx) = self.0 else {
            return;
        };
        if result::ctx::get_current().ok().flatten() != Some(ctx) {
            // SAFETY: a context that was current on this thread; one destroyed meanwhile is
            // refused by the driver (`CUDA_ERROR_INVALID_CONTEXT`), which nothing here can
            // report and the next bind replaces.
            let _ = unsafe { result::ctx::set_current(ctx) };
        }
    }
}

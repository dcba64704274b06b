//! Ordering work across streams: cudarc's automatic per-buffer events, or the caller's own
//! joins with them turned off.
//!
//! After the first [`Gpu::new_stream`], cudarc records an event on every buffer a launch
//! reads or writes and makes later uses on other streams wait on it: safe, but each launch
//! pays for those events. A program that orders its streams itself (fork, join) can turn the
//! tracking off for the device's context ([`Gpu::order_streams_manually`]); its launches on
//! any stream then cost what a launch on one stream costs.

use crate::device::gpu::Gpu;
use crate::error::{DriverResultExt, Error};

impl Gpu {
    /// Turns off cudarc's event tracking for buffers this device's context allocates from now
    /// on: launches and copies on several streams record and wait on no events, and ordering
    /// work between streams is the caller's (with [`Gpu::wait_for`]). Buffers allocated before
    /// keep their events. Every handle of the device shares the setting.
    ///
    /// # Safety
    ///
    /// For every buffer allocated after this call, the caller must order its uses across
    /// streams: no stream may use it before the work that allocated or filled it on another
    /// stream is done, no two streams may write it at once, and it must not be freed while
    /// another stream still uses it.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::Gpu;
    /// let gpu = Gpu::new(0)?;
    /// // SAFETY: this program joins its streams before sharing buffers between them.
    /// unsafe { gpu.order_streams_manually() };
    /// let (a, b) = (gpu.with_stream(&gpu.new_stream()?), gpu.with_stream(&gpu.new_stream()?));
    /// let x = a.upload(&[1.0f32; 1024])?;
    /// b.wait_for(&a)?; // b's later work starts after the upload on a
    /// let y = b.download(&x)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub unsafe fn order_streams_manually(&self) {
        // SAFETY: forwarded to the caller.
        unsafe { self.inner().ctx.disable_event_tracking() };
    }

    /// Whether buffers allocated now get cudarc's automatic cross-stream events (the
    /// default), or the caller orders streams ([`Gpu::order_streams_manually`]).
    ///
    /// ```no_run
    /// assert!(cuda_kernel_runtime::Gpu::new(0)?.tracks_buffer_events());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn tracks_buffer_events(&self) -> bool {
        self.inner().ctx.is_event_tracking()
    }

    /// Makes this handle's stream wait, on the device, for all work queued so far on
    /// `other`'s stream (an event recorded there and waited on here); the host does not
    /// wait.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let side = gpu.with_stream(&gpu.new_stream()?);
    /// side.wait_for(&gpu)?;   // fork: side starts after what gpu's stream queued
    /// gpu.wait_for(&side)?;   // join: gpu's stream continues after side's work
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When the driver fails to create, record or wait on the event.
    pub fn wait_for(&self, other: &Gpu) -> Result<(), Error> {
        self.stream().join(other.stream()).call("cuStreamWaitEvent")
    }
}

//! Pitched device allocations: rows padded by the driver to its preferred alignment
//! (`cuMemAllocPitch`), for 2D and 3D data whose rows kernels and copies address with a pitch.
//!
//! A [`Pitched`] buffer is a kernel argument like a device buffer (`&Pitched<T>` for
//! `const T*`, `&mut Pitched<T>` for `T*`); the kernel also needs its pitch
//! ([`Pitched::pitch_elems`] or [`Pitched::pitch_bytes`]). Its uses are ordered by an event
//! recorded after each launch or copy on it, waited on by the next stream that uses it and before
//! it is freed. Copies in and out are [`Gpu::copy_2d`] / [`Gpu::copy_3d`] (module `copy3d`).

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, CudaEvent, CudaStream, DeviceRepr};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::memory::prepared::PreparedBuffer;

/// A 2D or 3D device allocation of `width × height × depth` elements with padded rows
/// ([`Gpu::pitched`], [`Gpu::pitched_3d`]).
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let img = gpu.pitched::<f32>(1000, 600)?;
/// assert!(img.pitch_elems() >= 1000); // rows start at multiples of the driver's alignment
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct Pitched<T> {
    ptr: CUdeviceptr,
    pitch: usize,
    width: usize,
    height: usize,
    depth: usize,
    /// Recorded after every use; waited on before the next use on another stream and before
    /// the memory is freed.
    pub(crate) event: CudaEvent,
    ctx: Arc<CudaContext>,
    marker: PhantomData<*const T>,
}

// SAFETY: the buffer owns its device memory; access is ordered by `event` as for cudarc's slices.
unsafe impl<T: Send> Send for Pitched<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for Pitched<T> {}

impl<T> Pitched<T> {
    /// Elements per row that hold data.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert_eq!(gpu.pitched::<u8>(640, 480)?.width(), 640);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows per plane.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert_eq!(gpu.pitched::<u8>(640, 480)?.height(), 480);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn height(&self) -> usize {
        self.height
    }

    /// Planes (1 for a 2D buffer).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert_eq!(gpu.pitched_3d::<f32>(64, 64, 8)?.depth(), 8);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Bytes from the start of one row to the start of the next.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let img = gpu.pitched::<f32>(1000, 2)?;
    /// assert_eq!(img.pitch_bytes() % 4, 0);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn pitch_bytes(&self) -> usize {
        self.pitch
    }

    /// The pitch in elements (the driver's pitch is a multiple of the element size here).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let img = gpu.pitched::<f32>(1000, 2)?;
    /// assert_eq!(img.pitch_elems() * 4, img.pitch_bytes());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn pitch_elems(&self) -> usize {
        self.pitch / std::mem::size_of::<T>().max(1)
    }

    /// The device address of the first element.
    pub(crate) fn device_ptr(&self) -> CUdeviceptr {
        self.ptr
    }

    /// Bytes from the first row to the end of the last.
    pub(crate) fn byte_len(&self) -> usize {
        self.pitch * self.height * self.depth
    }
}

impl<T> Drop for Pitched<T> {
    fn drop(&mut self) {
        self.ctx.record_err(self.event.synchronize());
        // SAFETY: `ptr` came from cuMemAllocPitch and every use of it has completed.
        let freed = unsafe { driver::memory::memory_free(self.ptr) };
        self.ctx.record_err(freed);
    }
}

impl Gpu {
    /// A `width × height` pitched allocation (uninitialised contents are zeroed).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let img = gpu.pitched::<u16>(1920, 1080)?;
    /// assert_eq!((img.width(), img.height(), img.depth()), (1920, 1080, 1));
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for an element size the driver cannot pitch (it takes 4, 8 or 16
    /// bytes as the access size; other sizes use 4) or a zero extent; a driver error otherwise.
    pub fn pitched<T: DeviceRepr>(&self, width: usize, height: usize) -> Result<Pitched<T>, Error> {
        self.pitched_3d(width, height, 1)
    }

    /// A `width × height × depth` pitched allocation: `height × depth` rows of `width`
    /// elements, zeroed.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let vol = gpu.pitched_3d::<f32>(128, 128, 64)?;
    /// assert_eq!(vol.depth(), 64);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn pitched_3d<T: DeviceRepr>(
        &self,
        width: usize,
        height: usize,
        depth: usize,
    ) -> Result<Pitched<T>, Error> {
        let size = std::mem::size_of::<T>();
        let row = width.checked_mul(size);
        let rows = height.checked_mul(depth);
        let (Some(row), Some(rows)) = (row, rows) else {
            return Err(Error::OutOfRange {
                what: "pitched",
                problem: format!("{width} × {height} × {depth} elements overflow"),
            });
        };
        if row == 0 || rows == 0 {
            return Err(Error::OutOfRange {
                what: "pitched",
                problem: format!("an empty extent ({width} × {height} × {depth} elements)"),
            });
        }
        let access = match size {
            8 | 16 => size as u32,
            _ => 4,
        };
        let ctx = self.context().clone();
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: the context is current.
        let (ptr, pitch) =
            unsafe { driver::memory::alloc_pitch(row, rows, access) }.call("cuMemAllocPitch")?;
        let event = ctx.new_event(None).call("cuEventCreate");
        let event = match event {
            Ok(e) => e,
            Err(e) => {
                // SAFETY: just allocated, never used.
                let _ = unsafe { driver::memory::memory_free(ptr) };
                return Err(e);
            }
        };
        let buf = Pitched {
            ptr,
            pitch,
            width,
            height,
            depth,
            event,
            ctx,
            marker: PhantomData,
        };
        let stream = self.stream();
        // SAFETY: the range is the allocation; queued on the stream, recorded below.
        unsafe { driver::memory::memset_d8_async(ptr, 0, buf.byte_len(), stream.cu_stream()) }
            .call("cuMemsetD8Async")?;
        buf.event.record(stream).call("cuEventRecord")?;
        Ok(buf)
    }
}

impl<T> Pitched<T> {
    /// Waits on the buffer's last use, and records this one after the launch.
    pub(crate) fn prepare_use(
        &self,
        stream: &Arc<CudaStream>,
    ) -> Result<PreparedBuffer<'_>, Error> {
        stream.wait(&self.event).call("cuStreamWaitEvent")?;
        Ok(PreparedBuffer::new(self.ptr, Some(&self.event), true))
    }
}

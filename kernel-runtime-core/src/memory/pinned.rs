//! Page-locked (pinned) host buffers and asynchronous copies through them.
//!
//! cudarc's `alloc_pinned` asks for write-combined memory, which is fast for the device to read
//! but very slow for the host to read back. [`Gpu::pinned`] allocates ordinary cached pinned
//! memory (suitable both ways); [`Gpu::pinned_write_combined`] is there for upload-only staging.
//! Copies through pinned buffers are truly asynchronous: each copy records an event on its
//! stream, and the buffer's host accessors (`as_slice`, `as_mut_slice`) wait on it. (cudarc's own
//! `PinnedHostSlice` records its event only in multi-stream mode, so on the default stream its
//! accessors would not wait; [`PinnedBuffer`] always does.)

use cudarc::driver::{CudaEvent, DeviceRepr, HostSlice, PinnedHostSlice, ValidAsZeroBits, sys};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::memory::buffers::{byte_len, same_len};
use crate::memory::device_memory::{DeviceMemory, DeviceMemoryMut};

/// A page-locked host buffer whose host accessors wait for the asynchronous copies queued on it.
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let mut host = gpu.pinned::<u32>(4)?;
/// host.as_mut_slice()?.copy_from_slice(&[1, 2, 3, 4]);
/// let mut dev = gpu.zeros::<u32>(4)?;
/// gpu.upload_async(&host, &mut dev)?; // returns at once
/// host.as_mut_slice()?.fill(0); // waits for the upload first
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct PinnedBuffer<T> {
    host: PinnedHostSlice<T>,
    /// Recorded after every copy queued on the buffer.
    done: CudaEvent,
}

impl<T> PinnedBuffer<T> {
    /// Number of elements.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut host = gpu.pinned::<u32>(4)?;
    /// assert_eq!((host.len(), host.is_empty()), (4, false));
    /// host.wait()?;
    /// host.as_mut_slice()?.fill(7);
    /// assert_eq!(host.as_slice()?, [7; 4]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.host.len()
    }

    /// Whether the buffer is empty.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut host = gpu.pinned::<u32>(4)?;
    /// assert_eq!((host.len(), host.is_empty()), (4, false));
    /// host.wait()?;
    /// host.as_mut_slice()?.fill(7);
    /// assert_eq!(host.as_slice()?, [7; 4]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.host.is_empty()
    }

    /// Waits for the copies queued on this buffer.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut host = gpu.pinned::<u32>(4)?;
    /// assert_eq!((host.len(), host.is_empty()), (4, false));
    /// host.wait()?;
    /// host.as_mut_slice()?.fill(7);
    /// assert_eq!(host.as_slice()?, [7; 4]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn wait(&self) -> Result<(), Error> {
        self.done.synchronize().call("cuEventSynchronize")
    }
}

impl<T: ValidAsZeroBits> PinnedBuffer<T> {
    /// The contents, after the copies queued on this buffer.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut host = gpu.pinned::<u32>(4)?;
    /// assert_eq!((host.len(), host.is_empty()), (4, false));
    /// host.wait()?;
    /// host.as_mut_slice()?.fill(7);
    /// assert_eq!(host.as_slice()?, [7; 4]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn as_slice(&self) -> Result<&[T], Error> {
        self.wait()?;
        self.host.as_slice().call("cuEventSynchronize")
    }

    /// The contents for writing, after the copies queued on this buffer.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut host = gpu.pinned::<u32>(4)?;
    /// assert_eq!((host.len(), host.is_empty()), (4, false));
    /// host.wait()?;
    /// host.as_mut_slice()?.fill(7);
    /// assert_eq!(host.as_slice()?, [7; 4]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn as_mut_slice(&mut self) -> Result<&mut [T], Error> {
        self.wait()?;
        self.host.as_mut_slice().call("cuEventSynchronize")
    }
}

/// Records `done` after a copy queued on `stream`; when the buffer belongs to another
/// device's context (its event cannot be recorded there), waits for the copy instead.
fn mark_done(
    done: &CudaEvent,
    stream: &std::sync::Arc<cudarc::driver::CudaStream>,
) -> Result<(), Error> {
    if std::sync::Arc::ptr_eq(done.context(), stream.context()) {
        done.record(stream).call("cuEventRecord")
    } else {
        stream.synchronize().call("cuStreamSynchronize")
    }
}

pub(crate) mod sealed {
    /// Only this crate's page-locked types are [`super::PageLocked`].
    pub trait Sealed {}
}

/// Page-locked host memory that asynchronous copies take: a [`PinnedBuffer`] or a
/// [`Registered`](crate::Registered) slice. Each records an event after every copy queued on
/// it, and its host accessors wait on that event.
///
/// ```no_run
/// use cuda_kernel_runtime::{Gpu, PageLocked};
/// fn send<H: PageLocked<f32>>(gpu: &Gpu, host: &H) -> Result<(), cuda_kernel_runtime::Error> {
///     let mut dev = gpu.zeros::<f32>(host.len())?;
///     gpu.upload_async(host, &mut dev)
/// }
/// ```
pub trait PageLocked<T>: sealed::Sealed {
    /// Number of elements.
    fn len(&self) -> usize {
        self.host().len()
    }

    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[doc(hidden)]
    fn host(&self) -> &(dyn HostSlice<T> + '_);

    #[doc(hidden)]
    fn host_mut(&mut self) -> &mut (dyn HostSlice<T> + '_);

    #[doc(hidden)]
    fn done(&self) -> &CudaEvent;
}

impl<T> sealed::Sealed for PinnedBuffer<T> {}

impl<T> PageLocked<T> for PinnedBuffer<T> {
    fn host(&self) -> &(dyn HostSlice<T> + '_) {
        &self.host
    }

    fn host_mut(&mut self) -> &mut (dyn HostSlice<T> + '_) {
        &mut self.host
    }

    fn done(&self) -> &CudaEvent {
        &self.done
    }
}

impl Gpu {
    /// A zeroed pinned host buffer of `len` elements (cached, not write-combined).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut host = gpu.pinned::<f32>(1 << 20)?;
    /// host.as_mut_slice()?.fill(1.0);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn pinned<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<PinnedBuffer<T>, Error> {
        self.pinned_with_flags(len, sys::CU_MEMHOSTALLOC_PORTABLE)
    }

    /// A zeroed write-combined pinned buffer: fast host writes and device reads, very slow host
    /// reads. Use it only to stage uploads.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let staging = gpu.pinned_write_combined::<u8>(4096)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn pinned_write_combined<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<PinnedBuffer<T>, Error> {
        self.pinned_with_flags(
            len,
            sys::CU_MEMHOSTALLOC_WRITECOMBINED | sys::CU_MEMHOSTALLOC_PORTABLE,
        )
    }

    fn pinned_with_flags<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
        flags: u32,
    ) -> Result<PinnedBuffer<T>, Error> {
        byte_len::<T>("pinned", len)?;
        // SAFETY: the size was checked above (cudarc would panic on overflow); the contents are
        // zeroed below before anyone can read them, and zero is a valid `T`.
        let mut buf = unsafe { self.context().alloc_pinned_with_flags::<T>(len, flags) }
            .call("cuMemHostAlloc")?;
        let ptr = buf.as_mut_ptr().call("cuEventSynchronize")?;
        // SAFETY: `ptr` addresses `len` elements of `T` owned by `buf`; all-zero bits are valid.
        unsafe { std::ptr::write_bytes(ptr, 0, len) };
        let done = self.context().new_event(None).call("cuEventCreate")?;
        Ok(PinnedBuffer { host: buf, done })
    }

    /// Queues a copy of the page-locked `src` ([`PinnedBuffer`], [`Registered`](crate::Registered))
    /// into `dst` (same length) and returns at once. (Pinned and registered memory is pinned
    /// for every device; used from another device's handle than the one that made it, the
    /// copy is waited for before the call returns.)
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let host = gpu.pinned::<f32>(1024)?;
    /// let mut dev = gpu.zeros::<f32>(1024)?;
    /// gpu.upload_async(&host, &mut dev)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn upload_async<
        T: DeviceRepr,
        H: PageLocked<T> + ?Sized,
        D: DeviceMemoryMut<T> + ?Sized,
    >(
        &self,
        src: &H,
        dst: &mut D,
    ) -> Result<(), Error> {
        same_len("upload_async", src.len(), dst.len())?;
        if src.len() > 0 {
            let stream = self.stream();
            stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
            let d = dst.prepare_write(stream)?;
            // SAFETY: the host slice is used on `stream` only.
            let (host, _record) = unsafe { src.host().stream_synced_slice(stream) };
            // SAFETY: both hold `len` values; the host memory is page-locked and its `done`
            // event, recorded below, keeps it from being touched before the copy ends.
            unsafe { driver::memory::memcpy_htod_async(d.addr(), host, stream.cu_stream()) }
                .call("cuMemcpyHtoDAsync")?;
            d.finish(stream)?;
        }
        mark_done(src.done(), self.stream())
    }

    /// Queues a copy of `src` into the page-locked `dst` (same length) and returns at once;
    /// `dst.as_slice()` waits for it.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let dev = gpu.upload(&[1u32, 2])?;
    /// let mut host = gpu.pinned::<u32>(2)?;
    /// gpu.download_async(&dev, &mut host)?;
    /// assert_eq!(host.as_slice()?, [1, 2]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn download_async<T: DeviceRepr, S: DeviceMemory<T> + ?Sized, H: PageLocked<T> + ?Sized>(
        &self,
        src: &S,
        dst: &mut H,
    ) -> Result<(), Error> {
        same_len("download_async", src.len(), dst.len())?;
        if src.len() > 0 {
            let stream = self.stream();
            stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
            let s = src.prepare_read(stream)?;
            // SAFETY: the host slice is used on `stream` only.
            let (host, _record) = unsafe { dst.host_mut().stream_synced_mut_slice(stream) };
            // SAFETY: both hold `len` values; the host memory is page-locked and its accessors
            // wait on the `done` event recorded below.
            unsafe { driver::memory::memcpy_dtoh_async(host, s.addr(), stream.cu_stream()) }
                .call("cuMemcpyDtoHAsync")?;
            s.finish(stream)?;
        }
        mark_done(dst.done(), self.stream())
    }
}

//! [`TrackedBuffer`]: device memory whose uses on several streams the runtime orders itself,
//! with one event per stream (`streams::clock`) instead of cudarc's two per buffer, recorded
//! and waited on only when a use on one stream must wait for a use on another.
//!
//! The buffer is not a cudarc [`CudaSlice`](cudarc::driver::CudaSlice) and never lends one:
//! every use goes through the runtime (uploads, downloads, launches), so the runtime sees every
//! use and the ordering it keeps is complete. That is what makes skipping events sound.

use std::marker::PhantomData;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use cudarc::driver::sys::{CUdevice_attribute, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaStream, DeviceRepr, ValidAsZeroBits, result};

use crate::device::gpu::Gpu;
use crate::error::{DriverResultExt, Error};
use crate::launch::args::{ConstPtr, DeviceArg, MutPtr, PreparedArg};
use crate::memory::buffers::{byte_len, same_len};
use crate::streams::clock::{Slot, Use, slot_of};

/// Device memory for `len` values of `T` whose uses on several streams are ordered by the
/// runtime: a kernel or copy on one stream waits for the last write on another stream (and a
/// write for every read), with one event per stream rather than cudarc's per-buffer events,
/// and no event at all while a buffer stays on one stream. Launches pass it where a
/// `CudaSlice` goes (`&buffer` for a `const T*`, `&mut buffer` for a `T*`).
///
/// Dropping it frees the memory once every queued use is done, without waiting on the host.
///
/// ```no_run
/// use cuda_kernel_runtime::{Gpu, TrackedBuffer};
/// let gpu = Gpu::new(0)?;
/// let side = gpu.with_stream(&gpu.new_stream()?);
/// let x = TrackedBuffer::upload(&gpu, &[1.0f32, 2.0, 3.0])?;
/// // Read on another stream: that stream waits for the upload, nobody else waits.
/// assert_eq!(x.download(&side)?, [1.0, 2.0, 3.0]);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct TrackedBuffer<T> {
    ptr: CUdeviceptr,
    len: usize,
    ctx: Arc<CudaContext>,
    /// Allocated from the stream-ordered pool (freed with `cuMemFreeAsync`).
    pooled: bool,
    uses: Mutex<Uses>,
    _values: PhantomData<T>,
}

/// The last write and the reads after it, at most one per stream.
struct Uses {
    write: Use,
    reads: Vec<Use>,
}

impl Uses {
    /// Orders a use on `on` after the last write and, for a write, after every read.
    fn before(&mut self, on: &Arc<Slot>, write: bool) -> Result<(), Error> {
        self.write.order_before(on)?;
        if write {
            self.reads.iter_mut().try_for_each(|r| r.order_before(on))?;
        }
        Ok(())
    }

    /// Records a use. Every earlier use was ordered before a write, so the write alone
    /// stands for them; a read replaces the earlier read of its stream.
    fn after(&mut self, used: Use, write: bool) {
        if write {
            self.reads.clear();
            self.write = used;
        } else {
            self.reads.retain(|r| !r.on(used.slot()));
            self.reads.push(used);
        }
    }
}

impl<T> TrackedBuffer<T> {
    /// Number of values.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = cuda_kernel_runtime::TrackedBuffer::<u32>::zeros(&gpu, 10)?;
    /// assert_eq!(x.len(), 10);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no value.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert!(cuda_kernel_runtime::TrackedBuffer::<u32>::zeros(&gpu, 0)?.is_empty());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn uses(&self) -> MutexGuard<'_, Uses> {
        self.uses.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Errors unless `gpu` is of the buffer's context.
    fn same_context(&self, gpu: &Gpu) -> Result<(), Error> {
        if gpu.context().cu_ctx() == self.ctx.cu_ctx() {
            Ok(())
        } else {
            Err(Error::ForeignContext {
                what: "the TrackedBuffer",
                user: "stream it is used on",
            })
        }
    }

    /// Queues `op` on `gpu`'s stream after the uses it must follow, and records it.
    fn queue(
        &self,
        gpu: &Gpu,
        write: bool,
        op: impl FnOnce(&CudaStream) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.same_context(gpu)?;
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let slot = slot_of(gpu.stream());
        let mut uses = self.uses();
        uses.before(&slot, write)?;
        op(slot.stream())?;
        let used = slot.mark();
        uses.after(used, write);
        Ok(())
    }
}

impl<T: DeviceRepr> TrackedBuffer<T> {
    /// `len` values of uninitialised memory allocated on `gpu`'s stream.
    fn alloc(gpu: &Gpu, len: usize) -> Result<Self, Error> {
        let bytes = byte_len::<T>("TrackedBuffer", len)?;
        let ctx = Arc::clone(gpu.context());
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let pooled = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)
            .call("cuDeviceGetAttribute")?
            != 0;
        let slot = slot_of(gpu.stream());
        let ptr = match (bytes, pooled) {
            (0, _) => 0,
            // SAFETY: the context is bound; the stream is live.
            (_, true) => unsafe { result::malloc_async(slot.stream().cu_stream(), bytes) }
                .call("cuMemAllocAsync")?,
            // SAFETY: the context is bound.
            (_, false) => unsafe { result::malloc_sync(bytes) }.call("cuMemAlloc")?,
        };
        Ok(TrackedBuffer {
            ptr,
            len,
            ctx,
            pooled,
            uses: Mutex::new(Uses {
                write: slot.mark(),
                reads: Vec::new(),
            }),
            _values: PhantomData,
        })
    }

    /// A new buffer holding a copy of `host`, written on `gpu`'s stream.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = cuda_kernel_runtime::TrackedBuffer::upload(&gpu, &[1u8, 2, 3])?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When the size overflows or the driver fails to allocate or copy.
    pub fn upload(gpu: &Gpu, host: &[T]) -> Result<Self, Error> {
        let mut buffer = Self::alloc(gpu, host.len())?;
        buffer.upload_from(gpu, host)?;
        Ok(buffer)
    }

    /// A new buffer of `len` zeros, written on `gpu`'s stream.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = cuda_kernel_runtime::TrackedBuffer::<f32>::zeros(&gpu, 1 << 20)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When the size overflows or the driver fails to allocate or fill.
    pub fn zeros(gpu: &Gpu, len: usize) -> Result<Self, Error>
    where
        T: ValidAsZeroBits,
    {
        let mut buffer = Self::alloc(gpu, len)?;
        buffer.memset_zeros(gpu)?;
        Ok(buffer)
    }

    /// Copies `host` (same length) into the buffer on `gpu`'s stream, after every queued use
    /// of the buffer on other streams.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut x = cuda_kernel_runtime::TrackedBuffer::<i32>::zeros(&gpu, 2)?;
    /// x.upload_from(&gpu, &[5, 6])?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] when the lengths differ; the driver's failures.
    pub fn upload_from(&mut self, gpu: &Gpu, host: &[T]) -> Result<(), Error> {
        same_len("TrackedBuffer::upload_from", host.len(), self.len)?;
        if self.len == 0 {
            return Ok(());
        }
        let ptr = self.ptr;
        self.queue(gpu, true, |s| {
            // SAFETY: `host` and the allocation both hold `len` values; from pageable memory
            // the call returns once `host` has been read.
            unsafe { result::memcpy_htod_async(ptr, host, s.cu_stream()) }.call("cuMemcpyHtoDAsync")
        })
    }

    /// Sets every byte of the buffer to zero on `gpu`'s stream, after every queued use of the
    /// buffer on other streams.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut x = cuda_kernel_runtime::TrackedBuffer::upload(&gpu, &[1u32, 2, 3])?;
    /// x.memset_zeros(&gpu)?;
    /// assert_eq!(x.download(&gpu)?, [0, 0, 0]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When `gpu` is of another device's context; the driver's failures.
    pub fn memset_zeros(&mut self, gpu: &Gpu) -> Result<(), Error>
    where
        T: ValidAsZeroBits,
    {
        let (ptr, bytes) = (self.ptr, self.len * std::mem::size_of::<T>());
        if bytes == 0 {
            return Ok(());
        }
        self.queue(gpu, true, |s| {
            // SAFETY: `bytes` of the allocation, on a live stream of its context.
            unsafe { result::memset_d8_async(ptr, 0, bytes, s.cu_stream()) }.call("cuMemsetD8Async")
        })
    }

    /// Copies `src` (same length) into this buffer on `gpu`'s stream, after the last write of
    /// `src` and every use of this buffer on other streams; later uses of either on other
    /// streams wait for the copy as for any other use.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// use cuda_kernel_runtime::TrackedBuffer;
    /// let x = TrackedBuffer::upload(&gpu, &[1.5f32, 2.5])?;
    /// let mut y = TrackedBuffer::<f32>::zeros(&gpu, 2)?;
    /// let side = gpu.with_stream(&gpu.new_stream()?);
    /// y.copy_from(&side, &x)?;
    /// assert_eq!(y.download(&gpu)?, [1.5, 2.5]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] when the lengths differ; [`Error::ForeignContext`] when a
    /// buffer or `gpu` is of another device's context; the driver's failures.
    pub fn copy_from(&mut self, gpu: &Gpu, src: &TrackedBuffer<T>) -> Result<(), Error> {
        same_len("TrackedBuffer::copy_from", src.len, self.len)?;
        self.same_context(gpu)?;
        src.same_context(gpu)?;
        if self.len == 0 {
            return Ok(());
        }
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let slot = slot_of(gpu.stream());
        // Two locks: `self` is borrowed mutably, so `src` is another buffer.
        let mut dst_uses = self.uses();
        let mut src_uses = src.uses();
        dst_uses.before(&slot, true)?;
        src_uses.before(&slot, false)?;
        let bytes = self.len * std::mem::size_of::<T>();
        // SAFETY: both allocations hold `bytes`; the stream is live and of their context.
        unsafe { result::memcpy_dtod_async(self.ptr, src.ptr, bytes, slot.stream().cu_stream()) }
            .call("cuMemcpyDtoDAsync")?;
        dst_uses.after(slot.mark(), true);
        src_uses.after(slot.mark(), false);
        Ok(())
    }

    /// Copies the buffer into a new `Vec` on `gpu`'s stream, after the last write on any
    /// stream, and waits for the copy.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = cuda_kernel_runtime::TrackedBuffer::upload(&gpu, &[7u16; 4])?;
    /// assert_eq!(x.download(&gpu)?, [7; 4]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The driver's failures.
    pub fn download(&self, gpu: &Gpu) -> Result<Vec<T>, Error> {
        let mut host = Vec::<T>::with_capacity(self.len);
        if self.len > 0 {
            self.queue(gpu, false, |s| {
                // SAFETY: the Vec has room for `len` values, written by the copy before the
                // stream is synchronised below.
                let dst = unsafe { std::slice::from_raw_parts_mut(host.as_mut_ptr(), self.len) };
                // SAFETY: both hold `len` values; the stream is synchronised before `dst` is read.
                unsafe { result::memcpy_dtoh_async(dst, self.ptr, s.cu_stream()) }
                    .call("cuMemcpyDtoHAsync")?;
                s.synchronize().call("cuStreamSynchronize")
            })?;
            // SAFETY: the copy wrote all `len` values and has finished.
            unsafe { host.set_len(self.len) };
        }
        Ok(host)
    }
}

impl<T> Drop for TrackedBuffer<T> {
    fn drop(&mut self) {
        if self.ptr == 0 {
            return;
        }
        // Errors cannot be returned from here; the context records none we could report.
        let _ = self.ctx.bind_to_thread();
        let uses = self.uses.get_mut().unwrap_or_else(PoisonError::into_inner);
        // Free on the last writer's stream once every read elsewhere is done.
        let slot = Arc::clone(uses.write.slot());
        for read in &mut uses.reads {
            let _ = read.order_before(&slot);
        }
        let stream = slot.stream().cu_stream();
        if self.pooled {
            // SAFETY: the memory was allocated from the pool; every use is ordered before.
            let _ = unsafe { result::free_async(self.ptr, stream) };
        } else {
            let _ = slot.stream().synchronize();
            // SAFETY: every use has finished.
            let _ = unsafe { result::free_sync(self.ptr) };
        }
    }
}

impl<T> std::fmt::Debug for TrackedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrackedBuffer")
            .field("len", &self.len)
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .finish_non_exhaustive()
    }
}

/// A tracked buffer prepared for a launch: its address, and the use to record after it.
#[doc(hidden)]
pub struct PreparedTracked<'a, T> {
    ptr: CUdeviceptr,
    buffer: &'a TrackedBuffer<T>,
    slot: Arc<Slot>,
    write: bool,
}

impl<T> PreparedArg for PreparedTracked<'_, T> {
    #[inline]
    fn param_ptr(&self) -> *mut std::ffi::c_void {
        std::ptr::from_ref(&self.ptr).cast_mut().cast()
    }

    #[inline]
    fn finish(self, _: &Arc<CudaStream>) -> Result<(), Error> {
        let used = self.slot.mark();
        self.buffer.uses().after(used, self.write);
        Ok(())
    }
}

/// Prepares `buffer` for a launch on `stream`: waits for the uses it must follow.
fn prepare<'a, T>(
    buffer: &'a TrackedBuffer<T>,
    stream: &Arc<CudaStream>,
    write: bool,
) -> Result<PreparedTracked<'a, T>, Error> {
    let slot = slot_of(stream);
    buffer.uses().before(&slot, write)?;
    Ok(PreparedTracked {
        ptr: buffer.ptr,
        buffer,
        slot,
        write,
    })
}

impl<T> DeviceArg for &TrackedBuffer<T> {
    type Prepared<'a>
        = PreparedTracked<'a, T>
    where
        Self: 'a;

    #[inline]
    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<Self::Prepared<'a>, Error> {
        prepare(self, stream, false)
    }
}

impl<T> DeviceArg for &mut TrackedBuffer<T> {
    type Prepared<'a>
        = PreparedTracked<'a, T>
    where
        Self: 'a;

    #[inline]
    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<Self::Prepared<'a>, Error> {
        prepare(self, stream, true)
    }
}

impl<T> ConstPtr<T> for &TrackedBuffer<T> {}
impl<T> ConstPtr<T> for &mut TrackedBuffer<T> {}
impl<T> MutPtr<T> for &mut TrackedBuffer<T> {}

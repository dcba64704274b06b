//! [`TrackedBuffer`]: device memory whose uses on several streams the runtime orders itself,
//! with one event per stream (`streams::clock`) instead of cudarc's two per buffer, recorded
//! and waited on only when a use on one stream must wait for a use on another.
//!
//! The buffer is not a cudarc [`CudaSlice`](cudarc::driver::CudaSlice) and never lends one:
//! every use goes through the runtime (uploads, downloads, launches), so the runtime sees every
//! use and the ordering it keeps is complete. That is what makes skipping events sound.
//!
//! The buffer holds its memory and its record of uses (`uses`, which orders each new use);
//! here too are the constructors that return one: the `Gpu`'s default buffers
//! ([`Gpu::upload`], [`Gpu::zeros`], `alloc`, `duplicate`) and a [`MemoryPool`]'s own.

use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};
use std::sync::Arc;

use cudarc::driver::sys::{CUdevice_attribute, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaStream, DeviceRepr, ValidAsZeroBits};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::memory::buffers::{byte_len, same_len};
use crate::memory::device_memory::{DeviceMemory, DeviceMemoryMut, Sealed};
use crate::memory::pool::MemoryPool;
use crate::memory::prepared::PreparedBuffer;
use crate::memory::uses::UseRecord;
use crate::streams::clock::{Slot, slot_of};

/// Device memory for `len` values of `T` whose uses on several streams are ordered by the
/// runtime: a kernel or copy on one stream waits for the last write on another stream (and a
/// write for every read), with one event per stream rather than cudarc's per-buffer events,
/// and no event at all while a buffer stays on one stream. Launches pass it where a
/// `CudaSlice` goes (`&buffer` for a `const T*`, `&mut buffer` for a `T*`).
///
/// The memory comes from the device's current stream-ordered pool ([`Gpu::memory_pool`]), or
/// from a [`MemoryPool`] named at allocation ([`MemoryPool::upload`]). Dropping it frees the
/// memory once every queued use is done (`cuMemFreeAsync` on its last writer's stream),
/// without waiting on the host.
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
    /// Allocated from a stream-ordered pool (freed with `cuMemFreeAsync`).
    pooled: bool,
    /// The pool it was allocated from (or imported from) when one was named, kept alive
    /// until the memory is freed; `None` for the device's current pool.
    pool: Option<MemoryPool>,
    /// Its uses on every stream, which order the next.
    uses: UseRecord,
    _values: PhantomData<T>,
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

    /// The device address `offset` values in.
    fn addr(&self, offset: usize) -> CUdeviceptr {
        self.ptr + (offset * std::mem::size_of::<T>()) as CUdeviceptr
    }

    /// Makes `stream` wait for the uses a use of the buffer there must follow; the returned
    /// buffer (at `offset` values in) records the use once the work is queued.
    #[inline]
    pub(crate) fn prepare_use(
        &self,
        stream: &Arc<CudaStream>,
        offset: usize,
        write: bool,
    ) -> Result<PreparedBuffer<'_>, Error> {
        let used = self.uses.prepare_use(stream, write)?;
        Ok(PreparedBuffer::tracked(self.addr(offset), used))
    }

    /// A view of the values in `range`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = gpu.upload(&[1u32, 2, 3, 4])?;
    /// assert_eq!(gpu.download(&x.slice(1..3))?, [2, 3]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Panics
    ///
    /// When `range` is not within the buffer (as slice indexing does); see
    /// [`try_slice`](Self::try_slice).
    pub fn slice(&self, range: impl RangeBounds<usize>) -> TrackedView<'_, T> {
        let (offset, len) = bounds(range, self.len)
            .unwrap_or_else(|| panic!("range out of bounds for a TrackedBuffer of {}", self.len));
        TrackedView {
            buffer: self,
            offset,
            len,
        }
    }

    /// A view of the values in `range`, or `None` when the range is not within the buffer.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = gpu.zeros::<f32>(4)?;
    /// assert!(x.try_slice(2..).is_some());
    /// assert!(x.try_slice(2..5).is_none());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn try_slice(&self, range: impl RangeBounds<usize>) -> Option<TrackedView<'_, T>> {
        let (offset, len) = bounds(range, self.len)?;
        Some(TrackedView {
            buffer: self,
            offset,
            len,
        })
    }

    /// A view of the values in `range` that kernels and copies may write.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut x = gpu.zeros::<u8>(4)?;
    /// gpu.upload_into(&[9, 9], &mut x.slice_mut(2..))?;
    /// assert_eq!(gpu.download(&x)?, [0, 0, 9, 9]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Panics
    ///
    /// When `range` is not within the buffer; see [`try_slice_mut`](Self::try_slice_mut).
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> TrackedViewMut<'_, T> {
        let (offset, len) = bounds(range, self.len)
            .unwrap_or_else(|| panic!("range out of bounds for a TrackedBuffer of {}", self.len));
        TrackedViewMut {
            buffer: self,
            offset,
            len,
        }
    }

    /// A writable view of the values in `range`, or `None` when the range is not within the
    /// buffer.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut x = gpu.zeros::<f32>(4)?;
    /// assert!(x.try_slice_mut(..4).is_some());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn try_slice_mut(
        &mut self,
        range: impl RangeBounds<usize>,
    ) -> Option<TrackedViewMut<'_, T>> {
        let (offset, len) = bounds(range, self.len)?;
        Some(TrackedViewMut {
            buffer: self,
            offset,
            len,
        })
    }

    /// The context the memory belongs to.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = gpu.zeros::<f32>(4)?;
    /// assert_eq!(x.context().cu_ctx(), gpu.context().cu_ctx());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The address of the allocation (of its first value).
    pub(crate) fn base(&self) -> CUdeviceptr {
        self.ptr
    }

    /// The pool the buffer was allocated or imported from, when one was named.
    pub(crate) fn pool(&self) -> Option<&MemoryPool> {
        self.pool.as_ref()
    }
}

/// `range` within `len` values: (offset, length).
fn bounds(range: impl RangeBounds<usize>, len: usize) -> Option<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1)?,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    (start <= end && end <= len).then(|| (start, end - start))
}

impl<T: DeviceRepr> TrackedBuffer<T> {
    /// `len` values of uninitialised memory allocated on `gpu`'s stream (on the replay
    /// stream when `gpu` is capturing a graph, so that the buffer outlives the capture), from
    /// the device's current memory pool.
    ///
    /// # Safety
    /// The values must be written before they are read as `T`.
    pub(crate) unsafe fn uninit(gpu: &Gpu, len: usize) -> Result<Self, Error> {
        // SAFETY: forwarded to the caller.
        unsafe { Self::uninit_in(gpu, len, None) }
    }

    /// [`uninit`](Self::uninit) from `pool` (`cuMemAllocFromPoolAsync`), or from the device's
    /// current pool when `None` (`cuMemAllocAsync`; `cuMemAlloc` on a device without pools).
    /// The caller checked that `pool` can allocate on `gpu`'s device.
    ///
    /// # Safety
    /// The values must be written before they are read as `T`.
    pub(crate) unsafe fn uninit_in(
        gpu: &Gpu,
        len: usize,
        pool: Option<&MemoryPool>,
    ) -> Result<Self, Error> {
        let bytes = byte_len::<T>("TrackedBuffer", len)?;
        let ctx = Arc::clone(gpu.context());
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let pooled = pool.is_some()
            || ctx
                .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)
                .call("cuDeviceGetAttribute")?
                != 0;
        // Allocated where the memory outlives a capture: on the replay stream when `gpu`
        // captures a graph.
        let slot = Arc::clone(slot_of(gpu.stream()).home());
        let stream = slot.stream().cu_stream();
        let ptr = match (bytes, pool) {
            (0, _) => 0,
            (_, Some(pool)) => {
                // SAFETY: the context is bound; the stream and the pool are live.
                unsafe { driver::memory::pool_alloc_async(pool.cu_pool(), bytes, stream) }
                    .call("cuMemAllocFromPoolAsync")?
            }
            (_, None) if pooled => {
                // SAFETY: the context is bound; the stream is live.
                unsafe { driver::memory::malloc_async(stream, bytes) }.call("cuMemAllocAsync")?
            }
            // SAFETY: the context is bound.
            (_, None) => unsafe { driver::memory::malloc_sync(bytes) }.call("cuMemAlloc")?,
        };
        Ok(Self::from_parts(ptr, len, ctx, pooled, slot, pool.cloned()))
    }

    /// A buffer over `len` values at `ptr`, an allocation of another process imported from
    /// `pool` (freed stream-ordered, as pool memory is), first used on `gpu`'s stream.
    pub(crate) fn imported(gpu: &Gpu, ptr: CUdeviceptr, len: usize, pool: MemoryPool) -> Self {
        let slot = Arc::clone(slot_of(gpu.stream()).home());
        Self::from_parts(ptr, len, Arc::clone(gpu.context()), true, slot, Some(pool))
    }

    /// A buffer whose every use so far was queued on `slot`'s stream.
    fn from_parts(
        ptr: CUdeviceptr,
        len: usize,
        ctx: Arc<CudaContext>,
        pooled: bool,
        slot: Arc<Slot>,
        pool: Option<MemoryPool>,
    ) -> Self {
        TrackedBuffer {
            ptr,
            len,
            ctx,
            pooled,
            pool,
            uses: UseRecord::new(&slot),
            _values: PhantomData,
        }
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
        // SAFETY: every value is written below before the buffer is handed out.
        let mut buffer = unsafe { Self::uninit(gpu, host.len())? };
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
        // SAFETY: every byte is zeroed below before the buffer is handed out.
        let mut buffer = unsafe { Self::uninit(gpu, len)? };
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
        self.same_context(gpu)?;
        gpu.upload_into(host, self)
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
        if self.len * std::mem::size_of::<T>() == 0 {
            return Ok(());
        }
        self.same_context(gpu)?;
        gpu.memset_zeros(self)
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
        gpu.copy(src, self)
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
        if self.len == 0 {
            return Ok(Vec::new());
        }
        self.same_context(gpu)?;
        gpu.download(self)
    }
}

/// The default buffers: what the `Gpu` allocates, from the device's current pool.
impl Gpu {
    /// Copies `host` into a new device buffer, ordered across streams by the runtime.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = gpu.upload(&[1.0f32, 2.0, 3.0])?;
    /// assert_eq!(x.len(), 3);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<TrackedBuffer<T>, Error> {
        TrackedBuffer::upload(self, host)
    }

    /// A new device buffer of `len` zeroed elements, ordered across streams by the runtime.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let y = gpu.zeros::<f64>(1 << 20)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<TrackedBuffer<T>, Error> {
        TrackedBuffer::zeros(self, len)
    }

    /// A new device buffer of `len` elements whose contents are unspecified.
    ///
    /// # Safety
    /// The contents must be written (by a kernel or a copy) before they are read as `T`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// // SAFETY: fully overwritten below before any read.
    /// let mut y = unsafe { gpu.alloc::<f32>(4)? };
    /// gpu.upload_into(&[0.5f32; 4], &mut y)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub unsafe fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<TrackedBuffer<T>, Error> {
        // SAFETY: forwarded to the caller.
        unsafe { TrackedBuffer::uninit(self, len) }
    }

    /// A new device buffer holding a copy of `src`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let a = gpu.upload(&[1u32, 2, 3])?;
    /// let b = gpu.duplicate(&a)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn duplicate<T: DeviceRepr, S: DeviceMemory<T> + ?Sized>(
        &self,
        src: &S,
    ) -> Result<TrackedBuffer<T>, Error> {
        // SAFETY: every value is written by the copy before anything else can use the buffer.
        let mut dst = unsafe { TrackedBuffer::uninit(self, src.len())? };
        self.copy(src, &mut dst)?;
        Ok(dst)
    }
}

/// A pool's own buffers: [`TrackedBuffer`]s allocated from it, each keeping it alive.
impl MemoryPool {
    /// `len` values of uninitialised memory from the pool, allocated on `gpu`'s stream
    /// (`cuMemAllocFromPoolAsync`): a [`TrackedBuffer`] like [`Gpu::alloc`]'s, freed on its
    /// last stream back into this pool.
    ///
    /// # Safety
    /// The contents must be written (by a kernel or a copy) before they are read as `T`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let pool = gpu.default_memory_pool()?;
    /// // SAFETY: fully overwritten below before any read.
    /// let mut y = unsafe { pool.alloc::<f32>(&gpu, 4)? };
    /// gpu.upload_into(&[0.5f32; 4], &mut y)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] for another process's pool (an imported pool holds only that
    /// process's allocations); [`Error::ForeignContext`] when `gpu` is of another device; the
    /// driver's failures (`CUDA_ERROR_OUT_OF_MEMORY` past the pool's maximum size).
    pub unsafe fn alloc<T: DeviceRepr>(
        &self,
        gpu: &Gpu,
        len: usize,
    ) -> Result<TrackedBuffer<T>, Error> {
        self.can_allocate(gpu)?;
        // SAFETY: forwarded to the caller; the pool allocates on `gpu`'s device.
        unsafe { TrackedBuffer::uninit_in(gpu, len, Some(self)) }
    }

    /// `len` zeroed values from the pool, allocated and zeroed on `gpu`'s stream.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let pool = gpu.default_memory_pool()?;
    /// let y = pool.zeros::<u32>(&gpu, 1 << 20)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`alloc`](Self::alloc)'s.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        gpu: &Gpu,
        len: usize,
    ) -> Result<TrackedBuffer<T>, Error> {
        // SAFETY: every byte is zeroed below before the buffer is handed out.
        let mut buffer = unsafe { self.alloc(gpu, len)? };
        buffer.memset_zeros(gpu)?;
        Ok(buffer)
    }

    /// A copy of `host` in memory from the pool, allocated and written on `gpu`'s stream.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let pool = gpu.default_memory_pool()?;
    /// let x = pool.upload(&gpu, &[1.0f32, 2.0, 3.0])?;
    /// assert_eq!(x.download(&gpu)?, [1.0, 2.0, 3.0]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`alloc`](Self::alloc)'s.
    pub fn upload<T: DeviceRepr>(&self, gpu: &Gpu, host: &[T]) -> Result<TrackedBuffer<T>, Error> {
        // SAFETY: every value is written below before the buffer is handed out.
        let mut buffer = unsafe { self.alloc(gpu, host.len())? };
        buffer.upload_from(gpu, host)?;
        Ok(buffer)
    }
}

impl<T> Drop for TrackedBuffer<T> {
    fn drop(&mut self) {
        if self.ptr == 0 {
            return;
        }
        // The buffer may be dropped on a thread bound to another device: its context is made
        // current for the free and the thread's put back.
        let _keep = driver::context::KeepCurrent::new();
        // Errors cannot be returned from here; the context records none we could report.
        let _ = self.ctx.bind_to_thread();
        // Free on the last writer's stream (the replay stream for a write captured into a
        // graph) once every use elsewhere is done.
        let slot = self.uses.order_for_free();
        let stream = slot.stream().cu_stream();
        if self.pooled {
            // SAFETY: the memory was allocated from a pool (or imported from another
            // process's); every use is ordered before.
            let _ = unsafe { driver::memory::free_async(self.ptr, stream) };
        } else {
            let _ = slot.stream().synchronize();
            // SAFETY: every use has finished.
            let _ = unsafe { driver::memory::free_sync(self.ptr) };
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

/// Read-only view of part of a [`TrackedBuffer`] (from [`TrackedBuffer::slice`]): kernels and
/// copies take it where they take the buffer, and its uses are ordered as uses of the whole
/// buffer.
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let x = gpu.upload(&[1.0f32, 2.0, 3.0])?;
/// let tail = x.slice(1..);
/// assert_eq!(tail.len(), 2);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct TrackedView<'a, T> {
    buffer: &'a TrackedBuffer<T>,
    offset: usize,
    len: usize,
}

/// Writable view of part of a [`TrackedBuffer`] (from [`TrackedBuffer::slice_mut`]); its uses
/// are ordered as uses of the whole buffer.
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let mut x = gpu.zeros::<f32>(8)?;
/// let mut head = x.slice_mut(..4);
/// gpu.memset_zeros(&mut head)?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct TrackedViewMut<'a, T> {
    buffer: &'a mut TrackedBuffer<T>,
    offset: usize,
    len: usize,
}

impl<T> TrackedView<'_, T> {
    /// Number of values.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert_eq!(gpu.zeros::<u8>(10)?.slice(2..5).len(), 3);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no value.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert!(gpu.zeros::<u8>(10)?.slice(3..3).is_empty());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T> TrackedViewMut<'_, T> {
    /// Number of values.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert_eq!(gpu.zeros::<u8>(10)?.slice_mut(2..).len(), 8);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no value.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert!(gpu.zeros::<u8>(10)?.slice_mut(10..).is_empty());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T> std::fmt::Debug for TrackedView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrackedView")
            .field("offset", &self.offset)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<T> std::fmt::Debug for TrackedViewMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrackedViewMut")
            .field("offset", &self.offset)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// The buffer, offset and length a tracked kind addresses.
pub(crate) trait Tracked<T> {
    fn parts(&self) -> (&TrackedBuffer<T>, usize, usize);
}

impl<T> Tracked<T> for TrackedBuffer<T> {
    fn parts(&self) -> (&TrackedBuffer<T>, usize, usize) {
        (self, 0, self.len)
    }
}

impl<T> Tracked<T> for TrackedView<'_, T> {
    fn parts(&self) -> (&TrackedBuffer<T>, usize, usize) {
        (self.buffer, self.offset, self.len)
    }
}

impl<T> Tracked<T> for TrackedViewMut<'_, T> {
    fn parts(&self) -> (&TrackedBuffer<T>, usize, usize) {
        (self.buffer, self.offset, self.len)
    }
}

impl<T, X: Tracked<T> + ?Sized> Tracked<T> for &X {
    fn parts(&self) -> (&TrackedBuffer<T>, usize, usize) {
        (**self).parts()
    }
}

impl<T, X: Tracked<T> + ?Sized> Tracked<T> for &mut X {
    fn parts(&self) -> (&TrackedBuffer<T>, usize, usize) {
        (**self).parts()
    }
}

/// [`DeviceMemory`] (and [`DeviceMemoryMut`] where writable) for each tracked kind.
macro_rules! tracked_memory {
    ($($ty:ty => $mutable:tt),*) => {$(
        impl<T> Sealed<T> for $ty {}

        impl<T> DeviceMemory<T> for $ty {
            fn len(&self) -> usize {
                Tracked::parts(self).2
            }

            fn prepare_read(&self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'_>, Error> {
                let (buffer, offset, _) = Tracked::parts(self);
                buffer.prepare_use(stream, offset, false)
            }

            fn context(&self) -> &Arc<CudaContext> {
                &Tracked::parts(self).0.ctx
            }

            fn own_stream(&self) -> Option<&Arc<CudaStream>> {
                None
            }

            fn address(&self) -> CUdeviceptr {
                let (buffer, offset, _) = Tracked::parts(self);
                buffer.addr(offset)
            }
        }

        tracked_memory!(@mut $ty, $mutable);
    )*};
    (@mut $ty:ty, mut) => {
        impl<T> DeviceMemoryMut<T> for $ty {
            fn prepare_write(
                &mut self,
                stream: &Arc<CudaStream>,
            ) -> Result<PreparedBuffer<'_>, Error> {
                let (buffer, offset, _) = Tracked::parts(&*self);
                buffer.prepare_use(stream, offset, true)
            }
        }
    };
    (@mut $ty:ty, ref) => {};
}

tracked_memory!(TrackedBuffer<T> => mut, TrackedView<'_, T> => ref, TrackedViewMut<'_, T> => mut);

#[cfg(test)]
mod tests {
    use super::bounds;

    #[test]
    fn ranges_within_the_buffer() {
        assert_eq!(bounds(.., 8), Some((0, 8)));
        assert_eq!(bounds(2..5, 8), Some((2, 3)));
        assert_eq!(bounds(2..=5, 8), Some((2, 4)));
        assert_eq!(bounds(8.., 8), Some((8, 0)));
        assert_eq!(bounds(..=7, 8), Some((0, 8)));
    }

    #[test]
    fn ranges_outside_are_none() {
        assert_eq!(bounds(9.., 8), None);
        assert_eq!(bounds(..9, 8), None);
        assert_eq!(bounds(..=8, 8), None);
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = 5..2;
        assert_eq!(bounds(backwards, 8), None);
        assert_eq!(bounds(..=usize::MAX, 8), None);
    }
}

//! Registered host memory: an existing slice (a `Vec`'s contents, a memory-mapped file)
//! page-locked in place for the lifetime of a guard (`cuMemHostRegister`), so that copies to
//! and from it are asynchronous and run at pinned-memory speed without a staging copy.
//!
//! The guard borrows the slice mutably: nothing else reaches the memory while the driver may be
//! copying it. Its host accessors wait for the copies queued on it, and dropping it waits for
//! them before unregistering. Registering costs time of its own (the pages are locked one by
//! one): it pays off for memory copied several times, or too large to copy into a
//! [`PinnedBuffer`](crate::PinnedBuffer) first (figures in docs/BENCHMARKS.md, "Registered host memory").

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaEvent, CudaStream, HostSlice, SyncOnDrop, sys};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::memory::buffers::byte_len;
use crate::memory::pinned::PageLocked;

/// A host slice page-locked for the guard's lifetime ([`Gpu::register`]).
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let mut data = vec![1.0f32; 1 << 20];
/// let mut dev = gpu.zeros::<f32>(data.len())?;
/// {
///     let host = gpu.register(&mut data)?;
///     gpu.upload_async(&host, &mut dev)?; // returns at once
/// } // waits for the copy, then unregisters
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct Registered<'a, T> {
    locked: Locked<T>,
    /// Recorded after every copy queued on the memory.
    done: CudaEvent,
    ctx: Arc<CudaContext>,
    marker: PhantomData<&'a mut [T]>,
}

/// The locked range as cudarc's copies take it. Private: every copy goes through
/// [`Gpu::upload_async`] / [`Gpu::download_async`], which record `done` after it, so that
/// dropping the guard waits for it.
struct Locked<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: the guard holds the only borrow of the slice; `T: Send`/`Sync` carry over as for
// `&mut [T]`.
unsafe impl<T: Send> Send for Registered<'_, T> {}
// SAFETY: shared access only reads, after waiting on the event.
unsafe impl<T: Sync> Sync for Registered<'_, T> {}

impl<T> Registered<'_, T> {
    fn slice(&self) -> &[T] {
        // SAFETY: `ptr`/`len` are the slice borrowed for the guard's lifetime.
        unsafe { std::slice::from_raw_parts(self.locked.ptr, self.locked.len) }
    }

    /// Number of elements.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut v = vec![0u8; 64];
    /// assert_eq!(gpu.register(&mut v)?.len(), 64);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.locked.len
    }

    /// Whether the slice is empty.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut v: Vec<u8> = Vec::new();
    /// assert!(gpu.register(&mut v)?.is_empty());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.locked.len == 0
    }

    /// Waits for the copies queued on this memory.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let mut v = vec![0u8; 64];
    /// let host = gpu.register(&mut v)?;
    /// host.wait()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn wait(&self) -> Result<(), Error> {
        self.done.synchronize().call("cuEventSynchronize")
    }

    /// The contents, after the copies queued on this memory.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let dev = gpu.upload(&[7u32; 4])?;
    /// let mut v = vec![0u32; 4];
    /// let mut host = gpu.register(&mut v)?;
    /// gpu.download_async(&dev, &mut host)?;
    /// assert_eq!(host.as_slice()?, &[7; 4]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn as_slice(&self) -> Result<&[T], Error> {
        self.wait()?;
        Ok(self.slice())
    }

    /// The contents for writing, after the copies queued on this memory.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut v = vec![0u32; 4];
    /// let mut host = gpu.register(&mut v)?;
    /// host.as_mut_slice()?.fill(3);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn as_mut_slice(&mut self) -> Result<&mut [T], Error> {
        self.wait()?;
        // SAFETY: `ptr`/`len` are the borrowed slice, uniquely borrowed through `&mut self`.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.locked.ptr, self.locked.len) })
    }
}

impl<T> Drop for Registered<'_, T> {
    fn drop(&mut self) {
        // Unregistering memory a copy still reads is undefined: wait first. Failures cannot
        // be returned from `drop`; cudarc keeps them in the context for its next check.
        self.ctx.record_err(self.done.synchronize());
        if self.locked.len > 0 {
            let ptr = self.locked.ptr.cast();
            // SAFETY: `ptr` was registered by `Gpu::register` and no copy is pending.
            let unregistered = unsafe { driver::memory::host_unregister(ptr) };
            self.ctx.record_err(unregistered);
        }
    }
}

impl<T> crate::memory::pinned::sealed::Sealed for Registered<'_, T> {}

impl<T> PageLocked<T> for Registered<'_, T> {
    fn host(&self) -> &(dyn HostSlice<T> + '_) {
        &self.locked
    }

    fn host_mut(&mut self) -> &mut (dyn HostSlice<T> + '_) {
        &mut self.locked
    }

    fn done(&self) -> &CudaEvent {
        &self.done
    }
}

/// The slice as cudarc's copies take it; the copy functions record `done` after each copy.
impl<T> HostSlice<T> for Locked<T> {
    fn len(&self) -> usize {
        self.len
    }

    unsafe fn stream_synced_slice<'b>(
        &'b self,
        _stream: &'b CudaStream,
    ) -> (&'b [T], SyncOnDrop<'b>) {
        // SAFETY: `ptr`/`len` are the slice borrowed by the guard that owns `self`.
        let slice = unsafe { std::slice::from_raw_parts(self.ptr, self.len) };
        (slice, SyncOnDrop::Sync(None))
    }

    unsafe fn stream_synced_mut_slice<'b>(
        &'b mut self,
        _stream: &'b CudaStream,
    ) -> (&'b mut [T], SyncOnDrop<'b>) {
        // SAFETY: `ptr`/`len` are the slice, uniquely borrowed through `&mut self`.
        let slice = unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) };
        (slice, SyncOnDrop::Sync(None))
    }
}

impl Gpu {
    /// Page-locks `data` in place until the returned guard is dropped
    /// (`cuMemHostRegister`); [`Gpu::upload_async`] and [`Gpu::download_async`] take the
    /// guard like a [`PinnedBuffer`](crate::PinnedBuffer).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut frames = vec![0u16; 1920 * 1080];
    /// let mut dev = gpu.zeros::<u16>(frames.len())?;
    /// let mut host = gpu.register(&mut frames)?;
    /// gpu.download_async(&dev, &mut host)?;
    /// let first = host.as_slice()?[0]; // waits for the download
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// A driver error when the memory cannot be locked (for example beyond the process's
    /// locked-memory limit, or memory registered already).
    pub fn register<'a, T>(&self, data: &'a mut [T]) -> Result<Registered<'a, T>, Error> {
        let bytes = byte_len::<T>("register", data.len())?;
        let ctx = self.context().clone();
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let done = ctx.new_event(None).call("cuEventCreate")?;
        let ptr = data.as_mut_ptr();
        if bytes > 0 {
            // SAFETY: `ptr` addresses `bytes` bytes borrowed for `'a`, unregistered on drop.
            unsafe {
                driver::memory::host_register(ptr.cast(), bytes, sys::CU_MEMHOSTREGISTER_PORTABLE)
            }
            .call("cuMemHostRegister")?;
        }
        Ok(Registered {
            locked: Locked {
                ptr,
                len: data.len(),
            },
            done,
            ctx,
            marker: PhantomData,
        })
    }
}

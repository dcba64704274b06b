//! A context's limits (device stack, `printf` buffer, device `malloc` heap), its preferred split
//! of on-chip memory between L1 and shared memory, and the profiler's collection window.
//!
//! Device-side `printf` writes into a buffer of [`ContextLimit::PrintfFifoSize`] bytes; the driver
//! prints it on the host's standard output when the context synchronises (a
//! `Gpu::synchronize`, a blocking copy such as `download`) or a launch follows, not while the
//! kernel runs. Lines beyond the buffer are dropped: raise the limit before the launch.

use cudarc::driver::sys::{CUfunc_cache, CUlimit};

use crate::device::gpu::Gpu;
use crate::error::{DriverResultExt, Error};

/// A context limit ([`Gpu::set_limit`]).
///
/// ```
/// assert_ne!(cuda_kernel_runtime::ContextLimit::StackSize, cuda_kernel_runtime::ContextLimit::MallocHeapSize);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContextLimit {
    /// Bytes of stack per device thread.
    StackSize,
    /// Bytes of the buffer device-side `printf` writes into.
    PrintfFifoSize,
    /// Bytes of the heap device-side `malloc`/`new` allocate from.
    MallocHeapSize,
}

impl ContextLimit {
    fn cu(self) -> CUlimit {
        match self {
            ContextLimit::StackSize => CUlimit::CU_LIMIT_STACK_SIZE,
            ContextLimit::PrintfFifoSize => CUlimit::CU_LIMIT_PRINTF_FIFO_SIZE,
            ContextLimit::MallocHeapSize => CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE,
        }
    }
}

/// How on-chip memory is preferably split between L1 cache and shared memory
/// ([`Gpu::set_cache_preference`], [`crate::Kernel::set_cache_preference`]).
///
/// ```
/// let p = cuda_kernel_runtime::CachePreference::Shared;
/// assert_ne!(p, cuda_kernel_runtime::CachePreference::L1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CachePreference {
    /// No preference (the default).
    None,
    /// Larger shared memory, smaller L1.
    Shared,
    /// Larger L1, smaller shared memory.
    L1,
    /// Equal parts.
    Equal,
}

impl CachePreference {
    pub(crate) fn cu(self) -> CUfunc_cache {
        match self {
            CachePreference::None => CUfunc_cache::CU_FUNC_CACHE_PREFER_NONE,
            CachePreference::Shared => CUfunc_cache::CU_FUNC_CACHE_PREFER_SHARED,
            CachePreference::L1 => CUfunc_cache::CU_FUNC_CACHE_PREFER_L1,
            CachePreference::Equal => CUfunc_cache::CU_FUNC_CACHE_PREFER_EQUAL,
        }
    }
}

impl Gpu {
    /// Sets a limit of this device's context (before the launches it should apply to).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Gpu, ContextLimit};
    /// let gpu = Gpu::new(0)?;
    /// gpu.set_limit(ContextLimit::PrintfFifoSize, 16 << 20)?;
    /// assert!(gpu.limit(ContextLimit::PrintfFifoSize)? >= 16 << 20);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When the driver refuses the value (too large a stack, or a heap or buffer size after
    /// a kernel that uses it was launched).
    pub fn set_limit(&self, limit: ContextLimit, bytes: usize) -> Result<(), Error> {
        self.inner()
            .ctx
            .set_limit(limit.cu(), bytes)
            .call("cuCtxSetLimit")
    }

    /// The current value of a limit of this device's context.
    ///
    /// ```no_run
    /// let stack = cuda_kernel_runtime::Gpu::new(0)?.limit(cuda_kernel_runtime::ContextLimit::StackSize)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When the driver fails.
    pub fn limit(&self, limit: ContextLimit) -> Result<usize, Error> {
        self.inner().ctx.get_limit(limit.cu()).call("cuCtxGetLimit")
    }

    /// The context-wide preference between L1 and shared memory (a kernel's own preference,
    /// [`crate::Kernel::set_cache_preference`], wins for that kernel).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// gpu.set_cache_preference(cuda_kernel_runtime::CachePreference::Shared)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When the driver fails.
    pub fn set_cache_preference(&self, preference: CachePreference) -> Result<(), Error> {
        self.inner()
            .ctx
            .set_cache_config(preference.cu())
            .call("cuCtxSetCacheConfig")
    }

    /// Starts the profiler's collection (for `nsys --capture-range=cudaProfilerApi` or
    /// `ncu --profile-from-start off`); without a profiler attached it does nothing.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// gpu.profiler_start()?;
    /// // ... the launches to profile
    /// gpu.profiler_stop()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When the driver fails.
    pub fn profiler_start(&self) -> Result<(), Error> {
        self.inner().ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        cudarc::driver::profiler_start().call("cuProfilerStart")
    }

    /// Stops the profiler's collection (see [`Gpu::profiler_start`]).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// gpu.profiler_stop()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When the driver fails.
    pub fn profiler_stop(&self) -> Result<(), Error> {
        self.inner().ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        cudarc::driver::profiler_stop().call("cuProfilerStop")
    }
}

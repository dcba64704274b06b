//! A kernel's own preferences: the split of on-chip memory between L1 and shared memory.

use cudarc::driver::sys::CUfunction_attribute as F;

use super::Kernel;
use crate::device::config::CachePreference;
use crate::driver;
use crate::error::{DriverResultExt, Error};

impl Kernel {
    /// This kernel's preference between L1 and shared memory (over the context's).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let k = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?.kernel("stencil")?;
    /// k.set_cache_preference(cuda_kernel_runtime::CachePreference::Shared)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When the driver fails.
    pub fn set_cache_preference(&self, preference: CachePreference) -> Result<(), Error> {
        self.module()
            .inner
            .ctx
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        // SAFETY: the function handle is live while `self` is.
        unsafe { driver::module::set_function_cache_config(self.cu_function(), preference.cu()) }
            .call("cuFuncSetCacheConfig")
    }

    /// The share of on-chip memory this kernel prefers as shared memory, in percent (0–100;
    /// the driver rounds to a supported split). Read back with
    /// `attribute(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let k = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?.kernel("stencil")?;
    /// k.set_shared_carveout(100)?; // as much shared memory as the GPU allows
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A driver error (`CUDA_ERROR_INVALID_VALUE` above 100).
    pub fn set_shared_carveout(&self, percent: u8) -> Result<(), Error> {
        self.module()
            .inner
            .ctx
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        // SAFETY: the function handle is live while `self` is; the attribute takes an int.
        unsafe {
            driver::module::set_function_attribute(
                self.cu_function(),
                F::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                i32::from(percent),
            )
        }
        .call("cuFuncSetAttribute")
    }
}

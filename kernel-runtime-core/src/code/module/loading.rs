//! The driver's module loading mode, and loading a module's code before its first launch.
//!
//! With lazy loading (the driver's default since CUDA 12.2; `CUDA_MODULE_LOADING=LAZY`),
//! `cuModuleLoadData` only registers the image: each function's code is loaded onto the GPU
//! at its first `cuModuleGetFunction` or launch, which makes that first launch slower.
//! `CUDA_MODULE_LOADING=EAGER` loads everything at module load. [`RawModule::load_eager`] does
//! the eager part for one module whatever the mode, for code whose first launch must be fast.

use cudarc::driver::sys;

use super::RawModule;
use crate::driver;
use crate::error::{DriverResultExt, Error};

/// How the driver loads module code (`cuModuleGetLoadingMode`).
///
/// ```
/// let m = cuda_kernel_runtime::LoadingMode::Lazy;
/// assert_ne!(m, cuda_kernel_runtime::LoadingMode::Eager);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadingMode {
    /// Each function's code is loaded at its first use.
    Lazy,
    /// All code is loaded with its module.
    Eager,
}

/// The driver's module loading mode, which `CUDA_MODULE_LOADING` (`LAZY` or `EAGER`) sets
/// before the driver starts.
///
/// ```no_run
/// if cuda_kernel_runtime::loading_mode()? == cuda_kernel_runtime::LoadingMode::Lazy {
///     // first launches load their kernel's code: warm up, or use `RawModule::load_eager`
/// }
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub fn loading_mode() -> Result<LoadingMode, Error> {
    crate::device::init::ensure_driver()?;
    // SAFETY: the driver is initialised.
    let mode = unsafe { driver::module::get_loading_mode() }.call("cuModuleGetLoadingMode")?;
    Ok(match mode {
        sys::CUmoduleLoadingMode::CU_MODULE_LAZY_LOADING => LoadingMode::Lazy,
        _ => LoadingMode::Eager,
    })
}

impl RawModule {
    /// Loads the code of every function of the module onto the GPU now (`cuFuncLoad` on
    /// each), so that no first launch pays for it; returns how many functions it holds.
    /// Under eager loading this finds everything loaded already.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let m = cuda_kernel_runtime::RawModule::load_file(&gpu, "kernels.fatbin")?;
    /// let n = m.load_eager()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn load_eager(&self) -> Result<usize, Error> {
        self.inner.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let mut total = 0;
        for &m in &self.inner.cu_modules {
            // SAFETY: `m` is a live module handle owned by this module.
            let count = unsafe { driver::module::get_function_count(m) }
                .call("cuModuleGetFunctionCount")?;
            let mut functions: Vec<sys::CUfunction> = vec![std::ptr::null_mut(); count as usize];
            // SAFETY: as above; `functions` has room for `count` handles.
            unsafe { driver::module::enumerate_functions(&mut functions, m) }
                .call("cuModuleEnumerateFunctions")?;
            for f in functions {
                // SAFETY: `f` is a function of the live module `m`.
                unsafe { driver::module::func_load(f) }.call("cuFuncLoad")?;
            }
            total += count as usize;
        }
        Ok(total)
    }
}

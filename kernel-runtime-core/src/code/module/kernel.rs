//! [`Kernel`]: one kernel of a loaded module, its attributes, occupancy queries and
//! launches.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaStream, sys};

use super::RawModule;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::launch::args::tuple::KernelArgs;
use crate::launch::config::Launch;
use crate::launch::core::{launch_kernel, max_active_blocks};
use crate::launch::kernel_info::KernelInfo;

/// One kernel of a loaded module; its function handle was resolved once. Cheap to clone.
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// # let m = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?;
/// let k = m.kernel("saxpy")?;
/// let cfg = k.occupancy_config(1 << 20, 0)?;
/// println!("{}: {} threads per block", k.name(), cfg.block.0);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct Kernel {
    pub(super) module: RawModule,
    pub(super) info: Arc<KernelInfo>,
}

impl Kernel {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// The module it belongs to.
    pub fn module(&self) -> &RawModule {
        &self.module
    }

    /// The same kernel, launching on `stream`.
    pub fn with_stream(&self, stream: &Arc<CudaStream>) -> Kernel {
        Kernel {
            module: self.module.with_stream(stream),
            info: self.info.clone(),
        }
    }

    /// Most threads per block this kernel can be launched with (registers and
    /// `__launch_bounds__` included).
    pub fn max_threads_per_block(&self) -> u32 {
        self.info.limits.max_threads
    }

    /// Static shared memory per block, in bytes.
    pub fn static_shared_bytes(&self) -> u32 {
        self.info.limits.static_shared
    }

    /// Any function attribute.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::cudarc::driver::sys::CUfunction_attribute as F;
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let k = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?.kernel("saxpy")?;
    /// let regs = k.attribute(F::CU_FUNC_ATTRIBUTE_NUM_REGS)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn attribute(&self, attribute: CUfunction_attribute) -> Result<i32, Error> {
        self.module
            .inner
            .ctx
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        // SAFETY: the function handle is live while `self.module` is.
        unsafe { driver::module::get_function_attribute(self.info.function, attribute) }
            .call("cuFuncGetAttribute")
    }

    /// The raw driver handle (valid while this `Kernel` lives).
    pub fn cu_function(&self) -> sys::CUfunction {
        self.info.function
    }

    /// Blocks of `block_threads` threads that fit on one multiprocessor.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let k = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?.kernel("saxpy")?;
    /// let per_sm = k.max_active_blocks_per_sm(256, 0)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn max_active_blocks_per_sm(
        &self,
        block_threads: u32,
        shared_mem_bytes: u32,
    ) -> Result<u32, Error> {
        self.module
            .inner
            .ctx
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        max_active_blocks(&self.info, u64::from(block_threads), shared_mem_bytes)
    }

    /// A configuration for `n` elements (one per thread) whose block size maximises occupancy,
    /// as the driver's occupancy calculator sees it.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let k = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?.kernel("saxpy")?;
    /// let cfg = k.occupancy_config(1 << 24, 0)?;
    /// assert!(cfg.num_blocks() * cfg.threads_per_block() >= 1 << 24);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn occupancy_config(&self, n: u32, shared_mem_bytes: u32) -> Result<Launch, Error> {
        self.module
            .inner
            .ctx
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        let limit = i32::try_from(self.info.limits.max_threads).unwrap_or(0);
        // SAFETY: the function handle is live; no per-block-size callback is passed.
        let (_, block) = unsafe {
            driver::launch::max_potential_block_size(
                self.info.function,
                None,
                shared_mem_bytes as usize,
                limit,
            )
        }
        .call("cuOccupancyMaxPotentialBlockSize")?;
        let block = u32::try_from(block).unwrap_or(1).max(1);
        let grid = n.div_ceil(block).max(1);
        Ok(Launch::new(grid, block).with_shared_mem(shared_mem_bytes))
    }

    /// Launches with a tuple of arguments on the module's stream.
    ///
    /// # Safety
    /// The arguments must match the kernel's parameters in number, order and type (nothing here
    /// can check that for a kernel known only by name), and the kernel must stay within the
    /// memory it is given.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let k = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?.kernel("saxpy")?;
    /// let x = gpu.upload(&[1.0f32; 256])?;
    /// let mut y = gpu.upload(&[2.0f32; 256])?;
    /// // SAFETY: saxpy(float a, const float* x, float* y, int n).
    /// unsafe { k.launch(&cuda_kernel_runtime::Launch::for_num_elems(256), (2.0f32, &x, &mut y, 256i32))? };
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub unsafe fn launch<A: KernelArgs>(&self, cfg: &Launch, args: A) -> Result<(), Error> {
        let stream = self.module.gpu.stream();
        // SAFETY: the caller guarantees the arguments match the parameters.
        args.with_params(stream, |params| unsafe {
            let module = &self.module.inner;
            launch_kernel(&module.ctx, &module.device, &self.info, stream, cfg, params)
        })
    }

    /// Launches with raw parameter pointers, as `cuLaunchKernel` takes them.
    ///
    /// # Safety
    /// `params` must hold one pointer per kernel parameter, each to a value of that parameter's
    /// type; device memory they refer to must stay valid until the kernel finishes, and its
    /// ordering with other streams is the caller's job.
    ///
    /// ```no_run
    /// # use std::ffi::c_void;
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let k = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?.kernel("fill")?;
    /// let buf = gpu.zeros::<u32>(64)?;
    /// let (mut p, mut n) = (cuda_kernel_runtime::RawDevicePtr::of(&buf), 64u32);
    /// let mut params = [(&raw mut p).cast::<c_void>(), (&raw mut n).cast::<c_void>()];
    /// // SAFETY: fill(unsigned* p, unsigned n).
    /// unsafe { k.launch_raw(&cuda_kernel_runtime::Launch::for_num_elems(64), &mut params)? };
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub unsafe fn launch_raw(&self, cfg: &Launch, params: &mut [*mut c_void]) -> Result<(), Error> {
        // SAFETY: forwarded to the caller.
        unsafe {
            launch_kernel(
                &self.module.inner.ctx,
                &self.module.inner.device,
                &self.info,
                self.module.gpu.stream(),
                cfg,
                params,
            )
        }
    }
}

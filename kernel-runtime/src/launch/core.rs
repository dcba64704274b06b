//! The launch core: validate, bind the context, launch. No heap allocation on success.
//!
//! Plain launches go through `cuLaunchKernel`; cluster and cooperative launches through
//! `cuLaunchKernelEx` with the attributes on the stack.

use std::ffi::c_void;
use std::sync::atomic::Ordering;

use cudarc::driver::sys::{self, CUfunction_attribute as F, CUlaunchAttributeID as Id};
use cudarc::driver::{CudaStream, result};

use crate::code::module::{KernelInfo, ModuleInner};
use crate::error::{DriverResultExt, Error};
use crate::launch::config::Launch;
use crate::launch::validate::{ConfigError, validate};

/// Launches `kernel` of `module` on `stream` with `params` (one pointer per kernel parameter).
///
/// # Safety
/// `params` must hold exactly one pointer per kernel parameter, each pointing to a value of that
/// parameter's type, alive until this returns; device pointers among them must address memory
/// that stays valid and correctly typed until the kernel finishes.
#[inline]
pub(crate) unsafe fn launch_kernel(
    module: &ModuleInner,
    kernel: &KernelInfo,
    stream: &CudaStream,
    cfg: &Launch,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    if let Err(problem) = validate(cfg, &kernel.limits, &module.device) {
        return Err(invalid(kernel, problem));
    }
    module.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
    if cfg.shared_mem_bytes > kernel.max_dynamic_shared.load(Ordering::Relaxed) {
        raise_dynamic_shared(kernel, cfg.shared_mem_bytes)?;
    }
    if cfg.cluster.is_none() && !cfg.cooperative {
        // SAFETY: the caller guarantees `params`; `function` is live while `module` is.
        return unsafe {
            result::launch_kernel(
                kernel.function,
                cfg.grid,
                cfg.block,
                cfg.shared_mem_bytes,
                stream.cu_stream(),
                params,
            )
        }
        .call("cuLaunchKernel");
    }
    if cfg.cooperative {
        check_cooperative_grid(module, kernel, cfg)?;
    }
    // SAFETY: as above.
    unsafe { launch_ex(kernel, stream, cfg, params) }
}

/// `cuLaunchKernelEx` with cluster and cooperative attributes.
///
/// # Safety
/// As for [`launch_kernel`].
unsafe fn launch_ex(
    kernel: &KernelInfo,
    stream: &CudaStream,
    cfg: &Launch,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    // SAFETY: an all-zero attribute is a valid (ignored) value of this plain C union.
    let mut attrs: [sys::CUlaunchAttribute; 2] = unsafe { std::mem::zeroed() };
    let mut n = 0;
    if let Some((x, y, z)) = cfg.cluster {
        attrs[n].id = Id::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs[n].value.clusterDim.x = x;
        attrs[n].value.clusterDim.y = y;
        attrs[n].value.clusterDim.z = z;
        n += 1;
    }
    if cfg.cooperative {
        attrs[n].id = Id::CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        attrs[n].value.cooperative = 1;
        n += 1;
    }
    let config = sys::CUlaunchConfig {
        gridDimX: cfg.grid.0,
        gridDimY: cfg.grid.1,
        gridDimZ: cfg.grid.2,
        blockDimX: cfg.block.0,
        blockDimY: cfg.block.1,
        blockDimZ: cfg.block.2,
        sharedMemBytes: cfg.shared_mem_bytes,
        hStream: stream.cu_stream(),
        attrs: attrs.as_mut_ptr(),
        numAttrs: n as u32,
    };
    // SAFETY: `config` and `attrs` live across the call; the caller guarantees `params`.
    unsafe {
        sys::cuLaunchKernelEx(
            &config,
            kernel.function,
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    }
    .result()
    .call("cuLaunchKernelEx")
}

/// Opts the kernel in to more dynamic shared memory (validation has checked the device limit).
#[cold]
fn raise_dynamic_shared(kernel: &KernelInfo, bytes: u32) -> Result<(), Error> {
    let value = i32::try_from(bytes).unwrap_or(i32::MAX);
    // SAFETY: `function` is a live handle; the value is within the device's opt-in limit.
    unsafe {
        result::function::set_function_attribute(
            kernel.function,
            F::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            value,
        )
    }
    .call("cuFuncSetAttribute")?;
    kernel
        .max_dynamic_shared
        .fetch_max(bytes, Ordering::Relaxed);
    Ok(())
}

/// A cooperative grid must be resident at once.
#[cold]
fn check_cooperative_grid(
    module: &ModuleInner,
    kernel: &KernelInfo,
    cfg: &Launch,
) -> Result<(), Error> {
    let per_sm = max_active_blocks(kernel, cfg.threads_per_block(), cfg.shared_mem_bytes)?;
    let limit = u64::from(per_sm) * u64::from(module.device.multiprocessors);
    if cfg.num_blocks() > limit {
        return Err(invalid(
            kernel,
            ConfigError::CooperativeGridTooLarge {
                blocks: cfg.num_blocks(),
                limit,
            },
        ));
    }
    Ok(())
}

/// Blocks of this size that fit on one multiprocessor.
pub(crate) fn max_active_blocks(
    kernel: &KernelInfo,
    threads: u64,
    shared: u32,
) -> Result<u32, Error> {
    let threads = i32::try_from(threads).unwrap_or(i32::MAX);
    // SAFETY: `function` is a live handle; the context is bound by the caller's path.
    let n = unsafe {
        result::occupancy::max_active_block_per_multiprocessor(
            kernel.function,
            threads,
            shared as usize,
        )
    }
    .call("cuOccupancyMaxActiveBlocksPerMultiprocessor")?;
    Ok(u32::try_from(n).unwrap_or(0))
}

#[cold]
fn invalid(kernel: &KernelInfo, problem: ConfigError) -> Error {
    Error::InvalidConfig {
        kernel: kernel.name.clone(),
        problem,
    }
}

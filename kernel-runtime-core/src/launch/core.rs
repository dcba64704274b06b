//! The launch core: validate, bind the context, launch. No heap allocation on success.
//!
//! Plain launches go through `cuLaunchKernel`; launches with attributes (cluster shape,
//! cooperative, programmatic dependent launch, priority, preferred cluster shape, memory
//! synchronization domain, programmatic and completion events) through `cuLaunchKernelEx`
//! with the attributes on the stack (`attributes`: room for every kind, counted from their
//! list). A launch the driver accepts is recorded as the calling
//! thread's last (`label`: one thread-local store); with the `nvtx` feature the driver call
//! sits inside an NVTX range named after the kernel, and without it there is no NVTX code here.

use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use cudarc::driver::sys::{self, CUfunction_attribute as F};
use cudarc::driver::{CudaContext, CudaEvent, CudaStream};

use crate::device::limits::DeviceLimits;
use crate::driver;
use crate::error::{ConfigError, DriverResultExt, Error};
use crate::launch::attributes::{Attributes, Fired};
use crate::launch::config::Launch;
use crate::launch::event::{EventKey, live_event};
use crate::launch::kernel_info::KernelInfo;
use crate::launch::label;
use crate::launch::validate::validate;

/// Launches `kernel` (of a module loaded into `ctx`, on a device with limits `device`) on
/// `stream` with `params` (one pointer per kernel parameter).
///
/// A plain launch within the kernel's folded limits ([`PlainLimits`]) and its current dynamic
/// shared memory goes straight to the context check and `cuLaunchKernel`; any other goes
/// through [`launch_checked`], which names the limit it breaks or passes the attributes.
///
/// # Safety
/// `params` must hold exactly one pointer per kernel parameter, each pointing to a value of that
/// parameter's type, alive until this returns; device pointers among them must address memory
/// that stays valid and correctly typed until the kernel finishes.
///
/// [`PlainLimits`]: crate::launch::validate::PlainLimits
#[inline]
pub(crate) unsafe fn launch_kernel(
    ctx: &Arc<CudaContext>,
    device: &DeviceLimits,
    kernel: &KernelInfo,
    stream: &CudaStream,
    cfg: &Launch,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    if kernel.plain.admits(cfg)
        && cfg.shared_mem_bytes <= kernel.max_dynamic_shared.load(Ordering::Relaxed)
    {
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: forwarded to the caller.
        return unsafe { launch_plain(kernel, stream, cfg, params) };
    }
    // SAFETY: forwarded to the caller.
    unsafe { launch_checked(ctx, device, kernel, stream, cfg, params) }
}

/// `cuLaunchKernel` with the configuration's grid, block and dynamic shared memory.
///
/// # Safety
/// As for [`launch_kernel`]; the context is bound.
#[inline(always)]
unsafe fn launch_plain(
    kernel: &KernelInfo,
    stream: &CudaStream,
    cfg: &Launch,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    // SAFETY: the caller guarantees `params`; `function` is live while its module is.
    traced(kernel, || unsafe {
        driver::launch::launch_kernel(
            kernel.function,
            cfg.grid,
            cfg.block,
            cfg.shared_mem_bytes,
            stream.cu_stream(),
            params,
        )
    })
    .call("cuLaunchKernel")?;
    // Only after the driver took it: an error of this very call (a fault of an earlier
    // kernel, reported here) must name the kernel launched before.
    label::record(kernel.label);
    Ok(())
}

/// Runs the driver's launch call, inside the kernel's NVTX range when the `nvtx` feature is
/// on; nothing but the call otherwise.
#[inline(always)]
fn traced<R>(kernel: &KernelInfo, launch: impl FnOnce() -> R) -> R {
    #[cfg(feature = "nvtx")]
    let _range = kernel.label.range.enter();
    #[cfg(not(feature = "nvtx"))]
    let _ = kernel;
    launch()
}

/// [`launch_kernel`] for every other configuration: validation that names the broken limit,
/// more dynamic shared memory, cooperative and cluster checks, launch attributes.
///
/// # Safety
/// As for [`launch_kernel`].
#[inline(never)]
unsafe fn launch_checked(
    ctx: &Arc<CudaContext>,
    device: &DeviceLimits,
    kernel: &KernelInfo,
    stream: &CudaStream,
    cfg: &Launch,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    if let Err(problem) = validate(cfg, &kernel.limits, device) {
        return Err(invalid(kernel, problem));
    }
    ctx.bind_to_thread().call("cuCtxSetCurrent")?;
    if cfg.shared_mem_bytes > kernel.max_dynamic_shared.load(Ordering::Relaxed) {
        raise_dynamic_shared(kernel, cfg.shared_mem_bytes)?;
    }
    if !cfg.needs_ex() {
        // SAFETY: forwarded to the caller.
        return unsafe { launch_plain(kernel, stream, cfg, params) };
    }
    if cfg.cooperative {
        check_cooperative_grid(device, kernel, cfg)?;
    }
    if let Some(cluster) = cfg.cluster {
        check_cluster_fit(kernel, stream, cfg, cluster)?;
    }
    let live = |key: Option<EventKey>| {
        key.map(|key| live_event(key, ctx))
            .transpose()
            .map_err(|problem| invalid(kernel, problem))
    };
    let (programmatic_event, completion_event) =
        (live(cfg.programmatic_event)?, live(cfg.completion_event)?);
    let events = Events {
        programmatic: programmatic_event.as_deref(),
        completion: completion_event.as_deref(),
    };
    // SAFETY: as above; the events are held alive across the call.
    unsafe { launch_ex(kernel, stream, cfg, events, params) }
}

/// The live events a launch fires, looked up from its keys.
#[derive(Clone, Copy)]
struct Events<'a> {
    programmatic: Option<&'a CudaEvent>,
    completion: Option<&'a CudaEvent>,
}

/// `cuLaunchKernelEx` with the configuration's attributes.
///
/// # Safety
/// As for [`launch_kernel`].
unsafe fn launch_ex(
    kernel: &KernelInfo,
    stream: &CudaStream,
    cfg: &Launch,
    events: Events<'_>,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    let fired = Fired {
        programmatic: events.programmatic.map(CudaEvent::cu_event),
        completion: events.completion.map(CudaEvent::cu_event),
    };
    let mut attrs = Attributes::new();
    let config = launch_config(cfg, stream, attrs.set(cfg, fired));
    // SAFETY: `config` and `attrs` live across the call; the caller guarantees `params`.
    traced(kernel, || unsafe {
        driver::launch::launch_kernel_ex(&config, kernel.function, params)
    })
    .call("cuLaunchKernelEx")?;
    label::record(kernel.label);
    Ok(())
}

/// The driver's launch configuration for `cfg` on `stream` with `attrs` (which must outlive
/// its use).
fn launch_config(
    cfg: &Launch,
    stream: &CudaStream,
    attrs: &mut [sys::CUlaunchAttribute],
) -> sys::CUlaunchConfig {
    sys::CUlaunchConfig {
        gridDimX: cfg.grid.0,
        gridDimY: cfg.grid.1,
        gridDimZ: cfg.grid.2,
        blockDimX: cfg.block.0,
        blockDimY: cfg.block.1,
        blockDimZ: cfg.block.2,
        sharedMemBytes: cfg.shared_mem_bytes,
        hStream: stream.cu_stream(),
        attrs: if attrs.is_empty() {
            std::ptr::null_mut()
        } else {
            attrs.as_mut_ptr()
        },
        numAttrs: attrs.len() as u32,
    }
}

/// Opts the kernel in to more dynamic shared memory (validation has checked the device limit).
#[cold]
fn raise_dynamic_shared(kernel: &KernelInfo, bytes: u32) -> Result<(), Error> {
    let value = i32::try_from(bytes).unwrap_or(i32::MAX);
    // SAFETY: `function` is a live handle; the value is within the device's opt-in limit.
    unsafe {
        driver::module::set_function_attribute(
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
    device: &DeviceLimits,
    kernel: &KernelInfo,
    cfg: &Launch,
) -> Result<(), Error> {
    let per_sm = max_active_blocks(kernel, cfg.threads_per_block(), cfg.shared_mem_bytes)?;
    let limit = u64::from(per_sm) * u64::from(device.multiprocessors);
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

/// A cluster must fit on the device with this block size and shared memory: the driver's
/// occupancy query, remembered per kernel for the last block size and shared memory asked.
fn check_cluster_fit(
    kernel: &KernelInfo,
    stream: &CudaStream,
    cfg: &Launch,
    cluster: (u32, u32, u32),
) -> Result<(), Error> {
    let blocks = u64::from(cluster.0) * u64::from(cluster.1) * u64::from(cluster.2);
    let key = cfg.threads_per_block() | (u64::from(cfg.shared_mem_bytes) << 16);
    let seen = kernel.cluster_fit.load(Ordering::Relaxed);
    let limit = if seen != 0 && seen >> 8 == key {
        seen & 0xff
    } else {
        let limit = max_cluster_size(kernel, stream, cfg)?;
        kernel
            .cluster_fit
            .store((key << 8) | limit.min(0xff), Ordering::Relaxed);
        limit
    };
    if blocks > limit {
        return Err(invalid(
            kernel,
            ConfigError::ClusterExceedsOccupancy { blocks, limit },
        ));
    }
    Ok(())
}

/// `cuOccupancyMaxPotentialClusterSize` for this configuration.
#[cold]
fn max_cluster_size(kernel: &KernelInfo, stream: &CudaStream, cfg: &Launch) -> Result<u64, Error> {
    let config = launch_config(cfg, stream, &mut []);
    // SAFETY: a valid configuration; `function` is live, the context bound.
    let size = unsafe { driver::launch::max_potential_cluster_size(kernel.function, &config) }
        .call("cuOccupancyMaxPotentialClusterSize")?;
    Ok(u64::try_from(size).unwrap_or(0))
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
        driver::launch::max_active_block_per_multiprocessor(
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

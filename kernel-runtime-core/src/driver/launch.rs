//! Launch calls: the plain launch and the occupancy queries (through cudarc's `result`
//! layer), and launches with attributes and the cluster occupancy query (raw symbols, which
//! that layer lacks).

use std::ffi::{c_int, c_uint, c_void};

use cudarc::driver::{DriverError, result, sys};

/// `cuLaunchKernelEx`: launches `function` as `config` says, with one pointer per parameter
/// in `params` and no `extra` options.
///
/// # Safety
/// `config` (and the attributes it points to) must be valid for the call; `function` must be
/// live with its context current; `params` must hold one pointer per kernel parameter, each to
/// a value of that parameter's type, and memory the kernel uses must stay valid until it ends.
pub(crate) unsafe fn launch_kernel_ex(
    config: &sys::CUlaunchConfig,
    function: sys::CUfunction,
    params: &mut [*mut c_void],
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuLaunchKernelEx(config, function, params.as_mut_ptr(), std::ptr::null_mut()) }
        .result()
}

/// `cuOccupancyMaxPotentialClusterSize`: the largest cluster of `function` that fits on the
/// device with `config`'s block size and shared memory.
///
/// # Safety
/// `function` must be live with its context current; `config` must be valid for the call.
pub(crate) unsafe fn max_potential_cluster_size(
    function: sys::CUfunction,
    config: &sys::CUlaunchConfig,
) -> Result<c_int, DriverError> {
    let mut size: c_int = 0;
    // SAFETY: a valid out-pointer; the caller guarantees the rest.
    unsafe { sys::cuOccupancyMaxPotentialClusterSize(&mut size, function, config) }.result()?;
    Ok(size)
}

/// `cuLaunchKernel`, through cudarc's `result::launch_kernel`.
///
/// # Safety
/// As the driver asks of `cuLaunchKernel`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn launch_kernel(
    f: sys::CUfunction,
    grid_dim: (c_uint, c_uint, c_uint),
    block_dim: (c_uint, c_uint, c_uint),
    shared_mem_bytes: c_uint,
    stream: sys::CUstream,
    kernel_params: &mut [*mut c_void],
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe {
        result::launch_kernel(
            f,
            grid_dim,
            block_dim,
            shared_mem_bytes,
            stream,
            kernel_params,
        )
    }
}

/// `cuOccupancyMaxPotentialBlockSize`, through cudarc's `result::occupancy::max_potential_block_size`.
///
/// # Safety
/// As the driver asks of `cuOccupancyMaxPotentialBlockSize`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn max_potential_block_size(
    f: sys::CUfunction,
    block_size_to_dynamic_smem_size: sys::CUoccupancyB2DSize,
    dynamic_smem_size: usize,
    block_size_limit: c_int,
) -> Result<(i32, i32), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe {
        result::occupancy::max_potential_block_size(
            f,
            block_size_to_dynamic_smem_size,
            dynamic_smem_size,
            block_size_limit,
        )
    }
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessor`, through cudarc's `result::occupancy::max_active_block_per_multiprocessor`.
///
/// # Safety
/// As the driver asks of `cuOccupancyMaxActiveBlocksPerMultiprocessor`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn max_active_block_per_multiprocessor(
    f: sys::CUfunction,
    block_size: c_int,
    dynamic_smem_size: usize,
) -> Result<i32, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe {
        result::occupancy::max_active_block_per_multiprocessor(f, block_size, dynamic_smem_size)
    }
}

//! Launch calls cudarc's `result` layer lacks: launches with attributes and the cluster
//! occupancy query.

use std::ffi::{c_int, c_void};

use cudarc::driver::{DriverError, sys};

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

//! Driver, device and context calls: the driver's version and peer access between devices
//! (raw symbols, which cudarc's `result` layer lacks), and a device's default and current
//! memory pools (through that layer).

use std::ffi::{c_int, c_uint};

use cudarc::driver::{DriverError, result, sys};

/// `cuDriverGetVersion`: the CUDA version the driver supports, as `1000 * major + 10 * minor`.
///
/// # Safety
/// The driver must be initialised.
pub(crate) unsafe fn get_version() -> Result<c_int, DriverError> {
    let mut version: c_int = 0;
    // SAFETY: a valid out-pointer; the caller guarantees the driver is initialised.
    unsafe { sys::cuDriverGetVersion(&mut version) }.result()?;
    Ok(version)
}

/// `cuDeviceCanAccessPeer`: whether `dev` can access `peer`'s memory (non-zero when it can).
///
/// # Safety
/// Both must be devices of the initialised driver.
pub(crate) unsafe fn can_access_peer(
    dev: sys::CUdevice,
    peer: sys::CUdevice,
) -> Result<c_int, DriverError> {
    let mut can: c_int = 0;
    // SAFETY: a valid out-pointer; the caller guarantees the devices.
    unsafe { sys::cuDeviceCanAccessPeer(&mut can, dev, peer) }.result()?;
    Ok(can)
}

/// `cuCtxEnablePeerAccess`: lets the current context access `peer`'s memory.
///
/// # Safety
/// A context must be current and `peer` must be a live context; `flags` must be 0.
pub(crate) unsafe fn enable_peer_access(
    peer: sys::CUcontext,
    flags: c_uint,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuCtxEnablePeerAccess(peer, flags) }.result()
}

/// `cuDeviceGetDefaultMemPool`, through cudarc's `result::device::get_default_mem_pool`.
///
/// # Safety
/// As the driver asks of `cuDeviceGetDefaultMemPool`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn get_default_mem_pool(
    dev: sys::CUdevice,
) -> Result<sys::CUmemoryPool, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::device::get_default_mem_pool(dev) }
}

/// `cuDeviceGetMemPool`, through cudarc's `result::device::get_mem_pool`.
///
/// # Safety
/// As the driver asks of `cuDeviceGetMemPool`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn get_mem_pool(dev: sys::CUdevice) -> Result<sys::CUmemoryPool, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::device::get_mem_pool(dev) }
}

/// `cuDeviceSetMemPool`, through cudarc's `result::device::set_mem_pool`.
///
/// # Safety
/// As the driver asks of `cuDeviceSetMemPool`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn set_mem_pool(
    dev: sys::CUdevice,
    pool: sys::CUmemoryPool,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::device::set_mem_pool(dev, pool) }
}

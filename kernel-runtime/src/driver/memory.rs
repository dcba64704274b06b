//! Memory calls cudarc's `result` layer lacks: pitched allocations, page-locking host memory
//! in place, 3D copies, pointer attributes and memory pool access.

use std::ffi::{c_uint, c_void};

use cudarc::driver::{DriverError, sys};

/// `cuMemAllocPitch`: `height` rows of `width` bytes; the address and the pitch (bytes per row).
///
/// # Safety
/// A context must be current. The memory is uninitialised and must be freed once.
pub(crate) unsafe fn alloc_pitch(
    width: usize,
    height: usize,
    element_size: c_uint,
) -> Result<(sys::CUdeviceptr, usize), DriverError> {
    let mut ptr: sys::CUdeviceptr = 0;
    let mut pitch = 0usize;
    // SAFETY: valid out-pointers; the caller guarantees a current context.
    unsafe { sys::cuMemAllocPitch_v2(&mut ptr, &mut pitch, width, height, element_size) }
        .result()?;
    Ok((ptr, pitch))
}

/// `cuMemHostRegister`: page-locks `bytes` bytes of host memory at `ptr`.
///
/// # Safety
/// `ptr` must address `bytes` bytes that stay allocated until [`host_unregister`].
pub(crate) unsafe fn host_register(
    ptr: *mut c_void,
    bytes: usize,
    flags: c_uint,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuMemHostRegister_v2(ptr, bytes, flags) }.result()
}

/// `cuMemHostUnregister`: releases memory page-locked by [`host_register`].
///
/// # Safety
/// `ptr` must have been registered and no copy from or to it may be pending.
pub(crate) unsafe fn host_unregister(ptr: *mut c_void) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuMemHostUnregister(ptr) }.result()
}

/// `cuMemcpy3DAsync`: queues the copy `copy` describes on `stream`.
///
/// # Safety
/// Every memory `copy` names must hold the block it describes until the copy completes.
pub(crate) unsafe fn memcpy_3d_async(
    copy: &sys::CUDA_MEMCPY3D,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuMemcpy3DAsync_v2(copy, stream) }.result()
}

/// `cuPointerGetAttributes`: writes attribute `attributes[i]` of `ptr` through `data[i]`.
///
/// # Safety
/// `attributes` and `data` must have the same length, each data pointer addressing a value of
/// the type its attribute writes.
pub(crate) unsafe fn pointer_get_attributes(
    attributes: &mut [sys::CUpointer_attribute],
    data: &mut [*mut c_void],
    ptr: sys::CUdeviceptr,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller; the count is the arrays' length.
    unsafe {
        sys::cuPointerGetAttributes(
            attributes.len() as u32,
            attributes.as_mut_ptr(),
            data.as_mut_ptr(),
            ptr,
        )
    }
    .result()
}

/// `cuMemPoolSetAccess`: grants the accesses `map` describes to `pool`'s memory.
///
/// # Safety
/// `pool` must be a live memory pool.
pub(crate) unsafe fn pool_set_access(
    pool: sys::CUmemoryPool,
    map: &[sys::CUmemAccessDesc],
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller; the count is the slice's length.
    unsafe { sys::cuMemPoolSetAccess(pool, map.as_ptr(), map.len()) }.result()
}

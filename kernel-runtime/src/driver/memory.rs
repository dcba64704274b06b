//! Memory calls cudarc's `result` layer lacks: pitched allocations, page-locking host memory
//! in place, 3D copies, pointer attributes, and memory pools' access and sharing between
//! processes (cudarc's `result::mem_pool` has the rest: creating, destroying, trimming,
//! attributes, allocating from a pool).

use std::ffi::{c_int, c_uint, c_void};

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

/// `cuMemPoolGetAccess`: how `location` may access `pool`'s memory.
///
/// # Safety
/// `pool` must be a live memory pool.
pub(crate) unsafe fn pool_get_access(
    pool: sys::CUmemoryPool,
    mut location: sys::CUmemLocation,
) -> Result<sys::CUmemAccess_flags, DriverError> {
    let mut flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_NONE;
    // SAFETY: valid out- and in-pointers; the caller guarantees the pool.
    unsafe { sys::cuMemPoolGetAccess(&mut flags, pool, &mut location) }.result()?;
    Ok(flags)
}

/// `cuMemPoolExportToShareableHandle` as a POSIX file descriptor: a new descriptor of the
/// pool, which the caller owns (and closes).
///
/// # Safety
/// `pool` must be a live pool created with the POSIX file descriptor handle type.
pub(crate) unsafe fn pool_export_fd(pool: sys::CUmemoryPool) -> Result<c_int, DriverError> {
    let mut fd: c_int = -1;
    // SAFETY: for this handle type the driver writes an `int` through the out-pointer; flags
    // must be 0; the caller guarantees the pool.
    unsafe {
        sys::cuMemPoolExportToShareableHandle(
            (&raw mut fd).cast(),
            pool,
            sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
            0,
        )
    }
    .result()?;
    Ok(fd)
}

/// `cuMemPoolImportFromShareableHandle` of a POSIX file descriptor: the pool another process
/// exported. The descriptor stays the caller's (the driver does not close it).
///
/// # Safety
/// The driver must be initialised; the pool must be destroyed once.
pub(crate) unsafe fn pool_import_fd(fd: c_int) -> Result<sys::CUmemoryPool, DriverError> {
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    // For this handle type the handle is the descriptor itself, passed as a pointer-sized
    // value (not a pointer to it).
    let handle = std::ptr::without_provenance_mut::<c_void>(fd as usize);
    // SAFETY: a valid out-pointer; the driver validates the descriptor; flags must be 0.
    unsafe {
        sys::cuMemPoolImportFromShareableHandle(
            &mut pool,
            handle,
            sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
            0,
        )
    }
    .result()?;
    Ok(pool)
}

/// `cuMemPoolExportPointer`: what another process needs to import the allocation at `ptr`
/// from its import of the pool.
///
/// # Safety
/// `ptr` must be the base of a live allocation of a pool that can be exported.
pub(crate) unsafe fn pool_export_pointer(
    ptr: sys::CUdeviceptr,
) -> Result<sys::CUmemPoolPtrExportData, DriverError> {
    let mut data = sys::CUmemPoolPtrExportData { reserved: [0; 64] };
    // SAFETY: a valid out-pointer; the caller guarantees the allocation.
    unsafe { sys::cuMemPoolExportPointer(&mut data, ptr) }.result()?;
    Ok(data)
}

/// `cuMemGetAddressRange`: the base and the size in bytes of the allocation `ptr` lies in.
///
/// # Safety
/// The driver is initialised, with a context of `ptr`'s device current.
pub(crate) unsafe fn address_range(
    ptr: sys::CUdeviceptr,
) -> Result<(sys::CUdeviceptr, usize), DriverError> {
    let (mut base, mut size) = (0, 0);
    // SAFETY: valid out-pointers; the driver validates the address.
    unsafe { sys::cuMemGetAddressRange_v2(&mut base, &mut size, ptr) }.result()?;
    Ok((base, size))
}

/// `cuMemPoolImportPointer`: maps another process's allocation, described by `data`, from
/// `pool` (the import of its pool) into this process.
///
/// # Safety
/// `pool` must be a live imported pool. The address must be freed once (`cuMemFree` or
/// `cuMemFreeAsync`), before the exporting process frees the allocation.
pub(crate) unsafe fn pool_import_pointer(
    pool: sys::CUmemoryPool,
    mut data: sys::CUmemPoolPtrExportData,
) -> Result<sys::CUdeviceptr, DriverError> {
    let mut ptr: sys::CUdeviceptr = 0;
    // SAFETY: valid out- and in-pointers; the driver validates the data.
    unsafe { sys::cuMemPoolImportPointer(&mut ptr, pool, &mut data) }.result()?;
    Ok(ptr)
}

//! Memory calls: allocating and freeing (synchronously, on a stream, from a pool), copies
//! and fills on a stream, managed memory's prefetch and advice, and memory pools (creating,
//! destroying, trimming, attributes) through cudarc's `result` layer; and, over the raw
//! symbols where that layer lacks them, pitched allocations, page-locking host memory in
//! place, 3D copies, pointer attributes, and pools' access and sharing between processes.

use std::ffi::{c_int, c_uchar, c_uint, c_void};

use cudarc::driver::{DriverError, result, sys};

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

/// `cuMemAlloc`, through cudarc's `result::malloc_sync`.
///
/// # Safety
/// As the driver asks of `cuMemAlloc`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn malloc_sync(num_bytes: usize) -> Result<sys::CUdeviceptr, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::malloc_sync(num_bytes) }
}

/// `cuMemAllocAsync`, through cudarc's `result::malloc_async`.
///
/// # Safety
/// As the driver asks of `cuMemAllocAsync`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn malloc_async(
    stream: sys::CUstream,
    num_bytes: usize,
) -> Result<sys::CUdeviceptr, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::malloc_async(stream, num_bytes) }
}

/// `cuMemFree`, through cudarc's `result::free_sync`.
///
/// # Safety
/// As the driver asks of `cuMemFree`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn free_sync(dptr: sys::CUdeviceptr) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::free_sync(dptr) }
}

/// `cuMemFreeAsync`, through cudarc's `result::free_async`.
///
/// # Safety
/// As the driver asks of `cuMemFreeAsync`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn free_async(
    dptr: sys::CUdeviceptr,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::free_async(dptr, stream) }
}

/// `cuMemFree`, through cudarc's `result::memory_free`.
///
/// # Safety
/// As the driver asks of `cuMemFree`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn memory_free(device_ptr: sys::CUdeviceptr) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::memory_free(device_ptr) }
}

/// `cuMemsetD8Async`, through cudarc's `result::memset_d8_async`.
///
/// # Safety
/// As the driver asks of `cuMemsetD8Async`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn memset_d8_async(
    dptr: sys::CUdeviceptr,
    uc: c_uchar,
    num_bytes: usize,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::memset_d8_async(dptr, uc, num_bytes, stream) }
}

/// `cuMemcpyHtoDAsync`, through cudarc's `result::memcpy_htod_async`.
///
/// # Safety
/// As the driver asks of `cuMemcpyHtoDAsync`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn memcpy_htod_async<T>(
    dst: sys::CUdeviceptr,
    src: &[T],
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::memcpy_htod_async(dst, src, stream) }
}

/// `cuMemcpyDtoHAsync`, through cudarc's `result::memcpy_dtoh_async`.
///
/// # Safety
/// As the driver asks of `cuMemcpyDtoHAsync`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn memcpy_dtoh_async<T>(
    dst: &mut [T],
    src: sys::CUdeviceptr,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::memcpy_dtoh_async(dst, src, stream) }
}

/// `cuMemcpyDtoDAsync`, through cudarc's `result::memcpy_dtod_async`.
///
/// # Safety
/// As the driver asks of `cuMemcpyDtoDAsync`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn memcpy_dtod_async(
    dst: sys::CUdeviceptr,
    src: sys::CUdeviceptr,
    num_bytes: usize,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::memcpy_dtod_async(dst, src, num_bytes, stream) }
}

/// `cuMemcpyPeerAsync`, through cudarc's `result::memcpy_peer_async`.
///
/// # Safety
/// As the driver asks of `cuMemcpyPeerAsync`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn memcpy_peer_async(
    dst_ctx: sys::CUcontext,
    dst: sys::CUdeviceptr,
    src_ctx: sys::CUcontext,
    src: sys::CUdeviceptr,
    num_bytes: usize,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::memcpy_peer_async(dst_ctx, dst, src_ctx, src, num_bytes, stream) }
}

/// `cuMemPrefetchAsync`, through cudarc's `result::mem_prefetch_async`.
///
/// # Safety
/// As the driver asks of `cuMemPrefetchAsync`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn mem_prefetch_async(
    dptr: sys::CUdeviceptr,
    num_bytes: usize,
    location: sys::CUmemLocation,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::mem_prefetch_async(dptr, num_bytes, location, stream) }
}

/// `cuMemAdvise`, through cudarc's `result::mem_advise`.
///
/// # Safety
/// As the driver asks of `cuMemAdvise`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn mem_advise(
    dptr: sys::CUdeviceptr,
    num_bytes: usize,
    advice: sys::CUmem_advise,
    location: sys::CUmemLocation,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::mem_advise(dptr, num_bytes, advice, location) }
}

/// `cuMemPoolCreate`, through cudarc's `result::mem_pool::create`.
///
/// # Safety
/// As the driver asks of `cuMemPoolCreate`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn pool_create(
    pool_props: *const sys::CUmemPoolProps,
) -> Result<sys::CUmemoryPool, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::mem_pool::create(pool_props) }
}

/// `cuMemPoolDestroy`, through cudarc's `result::mem_pool::destroy`.
///
/// # Safety
/// As the driver asks of `cuMemPoolDestroy`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn pool_destroy(pool: sys::CUmemoryPool) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::mem_pool::destroy(pool) }
}

/// `cuMemPoolTrimTo`, through cudarc's `result::mem_pool::trim_to`.
///
/// # Safety
/// As the driver asks of `cuMemPoolTrimTo`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn pool_trim_to(
    pool: sys::CUmemoryPool,
    min_bytes_to_keep: usize,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::mem_pool::trim_to(pool, min_bytes_to_keep) }
}

/// `cuMemPoolGetAttribute`, through cudarc's `result::mem_pool::get_attribute`.
///
/// # Safety
/// As the driver asks of `cuMemPoolGetAttribute`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn pool_get_attribute(
    pool: sys::CUmemoryPool,
    attr: sys::CUmemPool_attribute,
    value: *mut c_void,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::mem_pool::get_attribute(pool, attr, value) }
}

/// `cuMemPoolSetAttribute`, through cudarc's `result::mem_pool::set_attribute`.
///
/// # Safety
/// As the driver asks of `cuMemPoolSetAttribute`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn pool_set_attribute(
    pool: sys::CUmemoryPool,
    attr: sys::CUmemPool_attribute,
    value: *mut c_void,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::mem_pool::set_attribute(pool, attr, value) }
}

/// `cuMemAllocFromPoolAsync`, through cudarc's `result::mem_pool::alloc_async`.
///
/// # Safety
/// As the driver asks of `cuMemAllocFromPoolAsync`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn pool_alloc_async(
    pool: sys::CUmemoryPool,
    num_bytes: usize,
    stream: sys::CUstream,
) -> Result<sys::CUdeviceptr, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::mem_pool::alloc_async(pool, num_bytes, stream) }
}

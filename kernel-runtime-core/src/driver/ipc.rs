//! Interprocess calls cudarc's `result` layer lacks: memory and event handles another process
//! opens, and events created with several flags at once (cudarc's `event::create` takes one).

use std::ffi::c_uint;

use cudarc::driver::{DriverError, sys};

/// `cuIpcGetMemHandle`: the handle of the allocation based at `ptr`.
///
/// # Safety
/// `ptr` must be the base of a live allocation of the current context.
pub(crate) unsafe fn get_mem_handle(
    ptr: sys::CUdeviceptr,
) -> Result<sys::CUipcMemHandle, DriverError> {
    let mut handle = sys::CUipcMemHandle {
        reserved: [0; sys::CU_IPC_HANDLE_SIZE as usize],
    };
    // SAFETY: a valid out-pointer; the caller guarantees the allocation.
    unsafe { sys::cuIpcGetMemHandle(&mut handle, ptr) }.result()?;
    Ok(handle)
}

/// `cuIpcOpenMemHandle`: maps another process's allocation into the current context.
///
/// # Safety
/// A context must be current. The address must be closed once, with [`close_mem_handle`].
pub(crate) unsafe fn open_mem_handle(
    handle: sys::CUipcMemHandle,
    flags: c_uint,
) -> Result<sys::CUdeviceptr, DriverError> {
    let mut ptr: sys::CUdeviceptr = 0;
    // SAFETY: a valid out-pointer; the driver validates the handle.
    unsafe { sys::cuIpcOpenMemHandle_v2(&mut ptr, handle, flags) }.result()?;
    Ok(ptr)
}

/// `cuIpcCloseMemHandle`: unmaps an allocation opened by [`open_mem_handle`].
///
/// # Safety
/// `ptr` must come from [`open_mem_handle`], be closed once, and have no use pending.
pub(crate) unsafe fn close_mem_handle(ptr: sys::CUdeviceptr) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuIpcCloseMemHandle(ptr) }.result()
}

/// `cuEventCreate` with `flags`, any combination of `CUevent_flags` values.
///
/// # Safety
/// A context must be current. The event must be destroyed once.
pub(crate) unsafe fn event_create(flags: c_uint) -> Result<sys::CUevent, DriverError> {
    let mut event: sys::CUevent = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; the caller guarantees a current context.
    unsafe { sys::cuEventCreate(&mut event, flags) }.result()?;
    Ok(event)
}

/// `cuIpcGetEventHandle`: the handle of an interprocess event.
///
/// # Safety
/// `event` must be a live event created with `CU_EVENT_INTERPROCESS`.
pub(crate) unsafe fn get_event_handle(
    event: sys::CUevent,
) -> Result<sys::CUipcEventHandle, DriverError> {
    let mut handle = sys::CUipcEventHandle {
        reserved: [0; sys::CU_IPC_HANDLE_SIZE as usize],
    };
    // SAFETY: a valid out-pointer; the caller guarantees the event.
    unsafe { sys::cuIpcGetEventHandle(&mut handle, event) }.result()?;
    Ok(handle)
}

/// `cuIpcOpenEventHandle`: opens another process's event in the current context.
///
/// # Safety
/// A context must be current. The event must be destroyed once.
pub(crate) unsafe fn open_event_handle(
    handle: sys::CUipcEventHandle,
) -> Result<sys::CUevent, DriverError> {
    let mut event: sys::CUevent = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; the driver validates the handle.
    unsafe { sys::cuIpcOpenEventHandle(&mut event, handle) }.result()?;
    Ok(event)
}

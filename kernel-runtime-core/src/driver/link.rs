//! The driver's linker (`cuLinkCreate` … `cuLinkDestroy`), which cudarc's `result` layer
//! lacks.

use std::ffi::{CStr, c_uint, c_void};

use cudarc::driver::{DriverError, sys};

/// `cuLinkCreate`: a link state with JIT `options` and their `values`.
///
/// # Safety
/// A context must be current; `options` and `values` must have the same length, each value of
/// the kind its option takes, and buffers among them must outlive the state. The state must be
/// destroyed once, with [`destroy`].
pub(crate) unsafe fn create(
    options: &mut [sys::CUjit_option],
    values: &mut [*mut c_void],
) -> Result<sys::CUlinkState, DriverError> {
    let mut state: sys::CUlinkState = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; the count is the arrays' length; the rest is the caller's.
    unsafe {
        sys::cuLinkCreate_v2(
            options.len() as c_uint,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
            &mut state,
        )
    }
    .result()?;
    Ok(state)
}

/// `cuLinkAddData`: adds `data` (of kind `kind`, named `name` in the logs), without per-input
/// options.
///
/// # Safety
/// `state` must be a live link state.
pub(crate) unsafe fn add_data(
    state: sys::CUlinkState,
    kind: sys::CUjitInputType,
    data: &mut [u8],
    name: &CStr,
) -> Result<(), DriverError> {
    // SAFETY: the bytes and the name are alive for the call (the driver copies what it keeps);
    // no options; the caller guarantees the state.
    unsafe {
        sys::cuLinkAddData_v2(
            state,
            kind,
            data.as_mut_ptr().cast(),
            data.len(),
            name.as_ptr(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    }
    .result()
}

/// `cuLinkComplete`: the linked cubin's address and size, owned by the state (null when the
/// driver reports none).
///
/// # Safety
/// `state` must be a live link state; the cubin is valid until it is destroyed.
pub(crate) unsafe fn complete(
    state: sys::CUlinkState,
) -> Result<(*mut c_void, usize), DriverError> {
    let mut cubin: *mut c_void = std::ptr::null_mut();
    let mut size = 0usize;
    // SAFETY: valid out-pointers; the caller guarantees the state.
    unsafe { sys::cuLinkComplete(state, &mut cubin, &mut size) }.result()?;
    Ok((cubin, size))
}

/// `cuLinkDestroy`.
///
/// # Safety
/// `state` must come from [`create`] and be destroyed once; its cubin is freed with it.
pub(crate) unsafe fn destroy(state: sys::CUlinkState) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuLinkDestroy(state) }.result()
}

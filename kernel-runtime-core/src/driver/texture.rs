//! Array, texture and surface calls, which cudarc's `result` layer lacks.

use cudarc::driver::{DriverError, sys};

/// `cuArray3DCreate`: an array as `desc` describes.
///
/// # Safety
/// A context must be current. The array must be destroyed once, with [`array_destroy`].
pub(crate) unsafe fn array_3d_create(
    desc: &sys::CUDA_ARRAY3D_DESCRIPTOR,
) -> Result<sys::CUarray, DriverError> {
    let mut array: sys::CUarray = std::ptr::null_mut();
    // SAFETY: a valid descriptor and out-pointer; the caller guarantees a current context.
    unsafe { sys::cuArray3DCreate_v2(&mut array, desc) }.result()?;
    Ok(array)
}

/// `cuArrayDestroy`.
///
/// # Safety
/// `array` must come from [`array_3d_create`], be destroyed once, and have no work pending
/// and no texture or surface object left over it.
pub(crate) unsafe fn array_destroy(array: sys::CUarray) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuArrayDestroy(array) }.result()
}

/// `cuTexObjectCreate`: a texture object over `res` read as `tex` says, without a view
/// descriptor.
///
/// # Safety
/// A context must be current and what `res` names must outlive the object, which must be
/// destroyed once, with [`tex_object_destroy`].
pub(crate) unsafe fn tex_object_create(
    res: &sys::CUDA_RESOURCE_DESC,
    tex: &sys::CUDA_TEXTURE_DESC,
) -> Result<sys::CUtexObject, DriverError> {
    let mut object: sys::CUtexObject = 0;
    // SAFETY: valid descriptors and out-pointer, no view descriptor; the caller guarantees
    // the rest.
    unsafe { sys::cuTexObjectCreate(&mut object, res, tex, std::ptr::null()) }.result()?;
    Ok(object)
}

/// `cuTexObjectDestroy`.
///
/// # Safety
/// `object` must come from [`tex_object_create`] and be destroyed once.
pub(crate) unsafe fn tex_object_destroy(object: sys::CUtexObject) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuTexObjectDestroy(object) }.result()
}

/// `cuSurfObjectCreate`: a surface object over `res`.
///
/// # Safety
/// A context must be current and what `res` names must outlive the object, which must be
/// destroyed once, with [`surf_object_destroy`].
pub(crate) unsafe fn surf_object_create(
    res: &sys::CUDA_RESOURCE_DESC,
) -> Result<sys::CUsurfObject, DriverError> {
    let mut object: sys::CUsurfObject = 0;
    // SAFETY: a valid descriptor and out-pointer; the caller guarantees the rest.
    unsafe { sys::cuSurfObjectCreate(&mut object, res) }.result()?;
    Ok(object)
}

/// `cuSurfObjectDestroy`.
///
/// # Safety
/// `object` must come from [`surf_object_create`] and be destroyed once.
pub(crate) unsafe fn surf_object_destroy(object: sys::CUsurfObject) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuSurfObjectDestroy(object) }.result()
}

//! TMA descriptor encoding (`cuTensorMapEncodeTiled`, `cuTensorMapEncodeIm2col`), which
//! cudarc's `result` layer lacks. The arguments are the driver's, in its order; the
//! descriptor is written in place.

use std::ffi::{c_int, c_void};

use cudarc::driver::{DriverError, sys};

/// `cuTensorMapEncodeTiled`: writes a tiled descriptor of `rank` dimensions into `map`.
///
/// # Safety
/// `map` must be a writable, 64-byte aligned `CUtensorMap`; `dims` and `box_dims` must hold
/// `rank` entries, `strides` `rank - 1` and `element_strides` `rank`; `global` must address
/// the tensor's memory.
#[allow(clippy::too_many_arguments)] // the driver's own list
pub(crate) unsafe fn encode_tiled(
    map: *mut sys::CUtensorMap,
    data_type: sys::CUtensorMapDataType,
    rank: u32,
    global: *mut c_void,
    dims: &[u64],
    strides: &[u64],
    box_dims: &[u32],
    element_strides: &[u32],
    interleave: sys::CUtensorMapInterleave,
    swizzle: sys::CUtensorMapSwizzle,
    l2_promotion: sys::CUtensorMapL2promotion,
    oob_fill: sys::CUtensorMapFloatOOBfill,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe {
        sys::cuTensorMapEncodeTiled(
            map,
            data_type,
            rank,
            global,
            dims.as_ptr(),
            strides.as_ptr(),
            box_dims.as_ptr(),
            element_strides.as_ptr(),
            interleave,
            swizzle,
            l2_promotion,
            oob_fill,
        )
    }
    .result()
}

/// `cuTensorMapEncodeIm2col`: writes an im2col descriptor of `rank` dimensions into `map`.
///
/// # Safety
/// As [`encode_tiled`]; `lower` and `upper` must hold `rank - 2` offsets each.
#[allow(clippy::too_many_arguments)] // the driver's own list
pub(crate) unsafe fn encode_im2col(
    map: *mut sys::CUtensorMap,
    data_type: sys::CUtensorMapDataType,
    rank: u32,
    global: *mut c_void,
    dims: &[u64],
    strides: &[u64],
    lower: &[c_int],
    upper: &[c_int],
    channels: u32,
    pixels: u32,
    element_strides: &[u32],
    interleave: sys::CUtensorMapInterleave,
    swizzle: sys::CUtensorMapSwizzle,
    l2_promotion: sys::CUtensorMapL2promotion,
    oob_fill: sys::CUtensorMapFloatOOBfill,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe {
        sys::cuTensorMapEncodeIm2col(
            map,
            data_type,
            rank,
            global,
            dims.as_ptr(),
            strides.as_ptr(),
            lower.as_ptr(),
            upper.as_ptr(),
            channels,
            pixels,
            element_strides.as_ptr(),
            interleave,
            swizzle,
            l2_promotion,
            oob_fill,
        )
    }
    .result()
}

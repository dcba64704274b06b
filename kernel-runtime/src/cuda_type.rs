//! Rust types shared with CUDA: [`CudaType`], which `#[derive(CudaType)]` implements for a
//! user's `#[repr(C)]` struct or fieldless enum, and which the types a field may hold
//! implement here (numbers, `f16`/`bf16`, the narrow floats of [`fp`](crate::fp), the types
//! of [`vector`](crate::vector), [`RawDevicePtr`], arrays of these).

use crate::launch::args::values::RawDevicePtr;

/// A Rust type whose values a kernel takes as CUDA lays out the type named
/// [`CUDA_NAME`](CudaType::CUDA_NAME).
///
/// Implemented by `#[derive(CudaType)]` (which also implements cudarc's `DeviceRepr`, so the
/// type is a kernel argument by value and a buffer element, and `ValidAsZeroBits` where
/// all-zero bytes are a value), and here for what a field of such a type may hold. A build
/// script's [`rust_types`](../cuda_kernel_build/struct.Build.html#method.rust_types) and
/// `cuda_module!`'s `types` key write the CUDA declarations of the derived types, so that
/// the type is defined once, in Rust.
///
/// ```
/// use cuda_kernel_runtime::{CudaType, vector::Float3};
///
/// /// A particle, as kernels see it.
/// #[derive(Clone, Copy, Debug, Default, PartialEq, CudaType)]
/// #[repr(C)]
/// pub struct Particle {
///     pub pos: Float3,
///     pub vel: [f32; 3],
///     pub mass: f32,
/// }
///
/// assert_eq!(Particle::CUDA_NAME, "Particle");
/// assert_eq!(<[f32; 3]>::CUDA_NAME, "float");
/// ```
///
/// # Safety
///
/// Values of the type have exactly the layout nvcc gives the CUDA type (size, alignment,
/// each field at its offset), and every bit pattern a kernel stores through that type is a
/// valid Rust value. The derive checks the first at compile time (`#[repr(C)]`, fields of
/// these types only); for an enum the second is the kernel's promise to store only its
/// variants' values, as for a C++ `enum class`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a type shared with CUDA",
    label = "not a CUDA type",
    note = "a field of a `#[derive(CudaType)]` type is a number (`f32`, `i32`, `u8`, ...), \
            `f16`/`bf16`, a narrow float of `fp`, a type of `vector`, a `RawDevicePtr`, an \
            array of these, or another `#[derive(CudaType)]` type"
)]
pub unsafe trait CudaType: Copy + 'static {
    /// The type's name in CUDA C++ (`float`, `float4`, `Particle`); an array's is its
    /// element's.
    const CUDA_NAME: &'static str;
}

macro_rules! cuda_types {
    ($($ty:ty => $c:literal),* $(,)?) => {$(
        // SAFETY: the runtime's own types, laid out as the CUDA type named (the numbers by
        // definition, the others asserted where they are declared); every bit pattern is a
        // value.
        unsafe impl CudaType for $ty {
            const CUDA_NAME: &'static str = $c;
        }
    )*};
}

cuda_types!(
    i8 => "signed char",
    i16 => "short",
    i32 => "int",
    i64 => "long long",
    u8 => "unsigned char",
    u16 => "unsigned short",
    u32 => "unsigned int",
    u64 => "unsigned long long",
    f32 => "float",
    f64 => "double",
    half::f16 => "__half",
    half::bf16 => "__nv_bfloat16",
    crate::fp::F8E4M3 => "__nv_fp8_e4m3",
    crate::fp::F8E5M2 => "__nv_fp8_e5m2",
    crate::fp::E8M0 => "__nv_fp8_e8m0",
    crate::fp::F6E2M3 => "__nv_fp6_e2m3",
    crate::fp::F6E3M2 => "__nv_fp6_e3m2",
    crate::fp::F4E2M1 => "__nv_fp4_e2m1",
    crate::fp::F4E2M1x2 => "__nv_fp4x2_e2m1",
    RawDevicePtr => "void*",
);

// SAFETY: an array of a shared type is laid out as the C array of its element.
unsafe impl<T: CudaType, const N: usize> CudaType for [T; N] {
    const CUDA_NAME: &'static str = T::CUDA_NAME;
}

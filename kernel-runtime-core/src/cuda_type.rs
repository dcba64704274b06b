//! Rust types shared with CUDA: [`CudaType`], which `#[derive(CudaType)]` implements for a
//! user's `#[repr(C)]` struct or fieldless enum, and which the types a field may hold
//! implement here (numbers, `f16`/`bf16`, the narrow floats of [`fp`](crate::fp), the types
//! of [`vector`](crate::vector), [`RawDevicePtr`], arrays of these).

use cuda_kernel_objects::ctypes::Scalar;

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
    ($($ty:ty => $scalar:ident),* $(,)?) => {
        $(
            // SAFETY: the runtime's own types, laid out as the CUDA type of the table's row
            // (the numbers by definition, the others asserted where they are declared, and
            // each against the table below); every bit pattern is a value.
            unsafe impl CudaType for $ty {
                const CUDA_NAME: &'static str = Scalar::$scalar.c_name();
            }
            const _: () = assert!(
                size_of::<$ty>() as u64 == Scalar::$scalar.size()
                    && align_of::<$ty>() as u64 == Scalar::$scalar.info().align
            );
        )*

        /// The scalars of the table the runtime shares, with their Rust types' names.
        #[cfg(test)]
        const SHARED_SCALARS: &[(Scalar, &str)] = &[$((Scalar::$scalar, stringify!($ty))),*];
    };
}

cuda_types!(
    i8 => I8,
    i16 => I16,
    i32 => I32,
    i64 => I64,
    u8 => U8,
    u16 => U16,
    u32 => U32,
    u64 => U64,
    f32 => F32,
    f64 => F64,
    half::f16 => F16,
    half::bf16 => BF16,
    crate::fp::F8E4M3 => Fp8E4M3,
    crate::fp::F8E5M2 => Fp8E5M2,
    crate::fp::E8M0 => Fp8E8M0,
    crate::fp::F6E2M3 => Fp6E2M3,
    crate::fp::F6E3M2 => Fp6E3M2,
    crate::fp::F4E2M1 => Fp4E2M1,
    crate::fp::F4E2M1x2 => Fp4x2E2M1,
);

// SAFETY: a device address, as C's `void*`: 8 bytes, any bit pattern.
unsafe impl CudaType for RawDevicePtr {
    const CUDA_NAME: &'static str = "void*";
}

// SAFETY: an array of a shared type is laid out as the C array of its element.
unsafe impl<T: CudaType, const N: usize> CudaType for [T; N] {
    const CUDA_NAME: &'static str = T::CUDA_NAME;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every scalar the runtime shares is the table's, by its C name and its Rust type's,
    /// and every scalar the table says can be shared is one the runtime shares.
    #[test]
    fn the_shared_scalars_are_the_tables() {
        for (scalar, ty) in SHARED_SCALARS {
            let info = scalar.info();
            let name = ty.rsplit("::").next().unwrap().trim();
            assert_eq!(name, info.rust, "{scalar:?}");
            assert!(info.shared, "{scalar:?}: the table says it is not shared");
        }
        for s in Scalar::ALL.into_iter().filter(|s| s.info().shared) {
            assert!(
                SHARED_SCALARS.iter().any(|(t, _)| *t == s),
                "{s:?} is shared in the table but implements no CudaType here"
            );
        }
        assert_eq!(<i8 as CudaType>::CUDA_NAME, "signed char");
        assert_eq!(<crate::fp::E8M0 as CudaType>::CUDA_NAME, "__nv_fp8_e8m0");
    }
}

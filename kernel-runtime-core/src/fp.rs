//! CUDA's narrow floating-point types (`cuda_fp8.h`, `cuda_fp6.h`, `cuda_fp4.h`) as Rust types
//! of the same size and alignment, usable as kernel arguments, buffer elements and struct fields.
//!
//! | CUDA | Rust | bytes |
//! |---|---|---|
//! | `__nv_fp8_e4m3` | [`F8E4M3`] (the `float8` crate, as cudarc's `f8` feature) | 1 |
//! | `__nv_fp8_e5m2` | [`F8E5M2`] (`float8`) | 1 |
//! | `__nv_fp8_e8m0` | [`E8M0`] (the `float4` crate, as cudarc's `f4` feature) | 1 |
//! | `__nv_fp4_e2m1` | [`F4E2M1`] (`float4`) | 1 |
//! | `__nv_fp4x2_e2m1` | [`F4E2M1x2`] (`float4`) | 1 |
//! | `__nv_fp6_e2m3` | [`F6E2M3`] (here: the raw byte) | 1 |
//! | `__nv_fp6_e3m2` | [`F6E3M2`] (here: the raw byte) | 1 |
//!
//! The packed `x2`/`x4` forms (`__nv_fp8x2_e4m3`, `__nv_fp6x4_e2m3`, `__nv_fp4x4_e2m1`, ...)
//! are in [`vector`](crate::vector): `Fp8x2E4M3`, `Fp6x4E2M3`, `Fp4x4E2M1`, ...
//!
//! ```
//! use cuda_kernel_runtime::fp::{F6E2M3, F8E4M3};
//! let x = F8E4M3::from_f32(1.5);
//! assert_eq!(x.to_f32(), 1.5);
//! assert_eq!(size_of::<F6E2M3>(), 1);
//! ```

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

pub use float4::{E8M0, F4E2M1, F4E2M1x2};
pub use float8::{F8E4M3, F8E5M2};

use crate::launch::args::values::value_arg;

macro_rules! fp6 {
    ($(#[$doc:meta])* $name:ident, $cname:literal) => {
        $(#[$doc])*
        #[doc = concat!("CUDA `", $cname, "`: one 6-bit value in the low bits of a byte, as the GPU stores it.")]
        #[repr(transparent)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name(pub u8);

        impl $name {
            #[doc = concat!("A `", $cname, "` from its bit pattern (the low 6 bits are used).")]
            pub const fn from_bits(bits: u8) -> Self {
                $name(bits & 0x3f)
            }

            /// The bit pattern.
            pub const fn to_bits(self) -> u8 {
                self.0
            }
        }

        // SAFETY: a transparent byte: every bit pattern is a value, zero among them.
        unsafe impl bytemuck::Zeroable for $name {}
        // SAFETY: as above.
        unsafe impl bytemuck::Pod for $name {}
        // SAFETY: a transparent byte.
        unsafe impl DeviceRepr for $name {}
        // SAFETY: zero is a valid byte.
        unsafe impl ValidAsZeroBits for $name {}
        value_arg!($name);
    };
}

fp6!(
    /// ```
    /// let x = cuda_kernel_runtime::fp::F6E2M3::from_bits(0xff);
    /// assert_eq!(x.to_bits(), 0x3f);
    /// ```
    F6E2M3,
    "__nv_fp6_e2m3"
);
fp6!(
    /// ```
    /// let x = cuda_kernel_runtime::fp::F6E3M2::from_bits(0x21);
    /// assert_eq!(x.to_bits(), 0x21);
    /// ```
    F6E3M2,
    "__nv_fp6_e3m2"
);

value_arg!(F8E4M3, F8E5M2, E8M0, F4E2M1, F4E2M1x2);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_is_one_byte() {
        let sizes = [
            size_of::<F8E4M3>(),
            size_of::<F8E5M2>(),
            size_of::<E8M0>(),
            size_of::<F4E2M1>(),
            size_of::<F4E2M1x2>(),
            size_of::<F6E2M3>(),
            size_of::<F6E3M2>(),
        ];
        assert_eq!(sizes, [1; 7]);
    }
}

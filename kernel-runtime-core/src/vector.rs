//! CUDA's vector types (`float2`, `int4`, `double4_32a`, ...) with CUDA's sizes and alignments,
//! as declared in CUDA 13's `vector_types.h`.
//!
//! Alignment is what makes them differ from arrays: `float2` is 8-aligned, `float4` 16-aligned,
//! `float3` only 4-aligned. CUDA 13 deprecates `long4`, `ulong4`, `longlong4`, `ulonglong4` and
//! `double4` (16-aligned) in favour of explicit `_16a` and `_32a` variants, here `...4A16` and
//! `...4A32`. `__half2` and `__nv_bfloat162` (from `cuda_fp16.h` and `cuda_bf16.h`) are
//! [`Half2`] and [`BFloat162`]. Every type is `#[repr(C, align(N))]`, `DeviceRepr` and `bytemuck::Pod`; sizes and
//! alignments are checked at compile time.
//!
//! ```
//! use cuda_kernel_runtime::vector::{Float3, Float4, Double4A32};
//! assert_eq!((size_of::<Float3>(), align_of::<Float3>()), (12, 4));
//! assert_eq!((size_of::<Float4>(), align_of::<Float4>()), (16, 16));
//! assert_eq!((size_of::<Double4A32>(), align_of::<Double4A32>()), (32, 32));
//! let v = Float4::new(1.0, 2.0, 3.0, 4.0);
//! assert_eq!(v.w, 4.0);
//! ```

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

use crate::launch::args::values::value_arg;

macro_rules! vector {
    ($(#[$doc:meta])* $name:ident, $cname:expr, $elem:ty, $align:literal, $size:literal: $($f:ident)+) => {
        #[doc = concat!("CUDA `", $cname, "`: ", stringify!($size), " bytes, aligned to ", stringify!($align), ".")]
        $(#[$doc])*
        #[repr(C, align($align))]
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct $name {
            $(
                #[doc = concat!("`.", stringify!($f), "`")]
                pub $f: $elem,
            )+
        }

        impl $name {
            #[doc = concat!("A `", $cname, "` from its components.")]
            pub const fn new($($f: $elem),+) -> Self {
                $name { $($f),+ }
            }
        }

        // SAFETY: plain numbers, every bit pattern a value, and no padding: the size is the
        // lanes' sizes added up (asserted below).
        unsafe impl bytemuck::Zeroable for $name {}
        // SAFETY: as above.
        unsafe impl bytemuck::Pod for $name {}
        // SAFETY: `#[repr(C)]` with CUDA's layout (asserted below); plain numbers only.
        unsafe impl DeviceRepr for $name {}
        // SAFETY: all-zero bits are a valid value of every field.
        unsafe impl ValidAsZeroBits for $name {}
        // SAFETY: CUDA's `$cname` layout, asserted below.
        unsafe impl crate::cuda_type::CudaType for $name {
            const CUDA_NAME: &'static str = $cname;
        }
        value_arg!($name);

        const _: () = assert!(size_of::<$name>() == $size && align_of::<$name>() == $align);
        // No padding (what `Pod` needs): the lanes fill the whole size.
        const _: () = assert!(size_of::<$name>() == [$(stringify!($f)),+].len() * size_of::<$elem>());
        // The workspace's table of CUDA types has this type, by these names, with this layout.
        const _: () = assert!(cuda_kernel_objects::ctypes::agrees(
            $cname,
            stringify!($name),
            size_of::<$name>(),
            align_of::<$name>()
        ));
    };
}

macro_rules! family {
    ($elem:ty, $c:literal, [$s1:literal $s2:literal $s3:literal $s4:literal],
     $n1:ident $a1:literal, $n2:ident $a2:literal, $n3:ident $a3:literal, $n4:ident $a4:literal) => {
        vector!($n1, concat!($c, "1"), $elem, $a1, $s1: x);
        vector!($n2, concat!($c, "2"), $elem, $a2, $s2: x y);
        vector!($n3, concat!($c, "3"), $elem, $a3, $s3: x y z);
        vector!($n4, concat!($c, "4"), $elem, $a4, $s4: x y z w);
    };
}

family!(i8, "char", [1 2 3 4], Char1 1, Char2 2, Char3 1, Char4 4);
family!(u8, "uchar", [1 2 3 4], UChar1 1, UChar2 2, UChar3 1, UChar4 4);
family!(i16, "short", [2 4 6 8], Short1 2, Short2 4, Short3 2, Short4 8);
family!(u16, "ushort", [2 4 6 8], UShort1 2, UShort2 4, UShort3 2, UShort4 8);
family!(i32, "int", [4 8 12 16], Int1 4, Int2 8, Int3 4, Int4 16);
family!(u32, "uint", [4 8 12 16], UInt1 4, UInt2 8, UInt3 4, UInt4 16);
family!(f32, "float", [4 8 12 16], Float1 4, Float2 8, Float3 4, Float4 16);
family!(i64, "long", [8 16 24 32], Long1 8, Long2 16, Long3 8, Long4 16);
family!(u64, "ulong", [8 16 24 32], ULong1 8, ULong2 16, ULong3 8, ULong4 16);
family!(i64, "longlong", [8 16 24 32], LongLong1 8, LongLong2 16, LongLong3 8, LongLong4 16);
family!(u64, "ulonglong", [8 16 24 32], ULongLong1 8, ULongLong2 16, ULongLong3 8, ULongLong4 16);
family!(f64, "double", [8 16 24 32], Double1 8, Double2 16, Double3 8, Double4 16);

vector!(Long4A16, "long4_16a", i64, 16, 32: x y z w);
vector!(Long4A32, "long4_32a", i64, 32, 32: x y z w);
vector!(ULong4A16, "ulong4_16a", u64, 16, 32: x y z w);
vector!(ULong4A32, "ulong4_32a", u64, 32, 32: x y z w);
vector!(LongLong4A16, "longlong4_16a", i64, 16, 32: x y z w);
vector!(LongLong4A32, "longlong4_32a", i64, 32, 32: x y z w);
vector!(ULongLong4A16, "ulonglong4_16a", u64, 16, 32: x y z w);
vector!(ULongLong4A32, "ulonglong4_32a", u64, 32, 32: x y z w);
vector!(Double4A16, "double4_16a", f64, 16, 32: x y z w);
vector!(Double4A32, "double4_32a", f64, 32, 32: x y z w);

vector!(Half2, "__half2", half::f16, 4, 4: x y);
vector!(BFloat162, "__nv_bfloat162", half::bf16, 4, 4: x y);

/// Packed narrow floats: lanes of a type from [`fp`](crate::fp), aligned to their size.
macro_rules! packed {
    ($name:ident, $cname:expr, $elem:ty, $size:literal: $($f:ident)+) => {
        #[doc = concat!("CUDA `", $cname, "`: ", stringify!($size), " bytes, aligned to ", stringify!($size), ".")]
        #[repr(C, align($size))]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name {
            $(
                #[doc = concat!("`.", stringify!($f), "`")]
                pub $f: $elem,
            )+
        }

        impl $name {
            #[doc = concat!("A `", $cname, "` from its lanes.")]
            pub const fn new($($f: $elem),+) -> Self {
                $name { $($f),+ }
            }
        }

        // SAFETY: one-byte lanes with no padding; every bit pattern is a value.
        unsafe impl bytemuck::Zeroable for $name {}
        // SAFETY: as above.
        unsafe impl bytemuck::Pod for $name {}
        // SAFETY: `#[repr(C)]` with CUDA's layout (asserted below).
        unsafe impl DeviceRepr for $name {}
        // SAFETY: all-zero bytes are a value of every lane.
        unsafe impl ValidAsZeroBits for $name {}
        // SAFETY: CUDA's `$cname` layout, asserted below.
        unsafe impl crate::cuda_type::CudaType for $name {
            const CUDA_NAME: &'static str = $cname;
        }
        value_arg!($name);

        const _: () = assert!(size_of::<$name>() == $size && align_of::<$name>() == $size);
        // The workspace's table of CUDA types has this type, by these names, with this layout.
        const _: () = assert!(cuda_kernel_objects::ctypes::agrees(
            $cname,
            stringify!($name),
            size_of::<$name>(),
            align_of::<$name>()
        ));
    };
}

packed!(Fp8x2E4M3, "__nv_fp8x2_e4m3", crate::fp::F8E4M3, 2: x y);
packed!(Fp8x4E4M3, "__nv_fp8x4_e4m3", crate::fp::F8E4M3, 4: x y z w);
packed!(Fp8x2E5M2, "__nv_fp8x2_e5m2", crate::fp::F8E5M2, 2: x y);
packed!(Fp8x4E5M2, "__nv_fp8x4_e5m2", crate::fp::F8E5M2, 4: x y z w);
packed!(Fp8x2E8M0, "__nv_fp8x2_e8m0", crate::fp::E8M0, 2: x y);
packed!(Fp8x4E8M0, "__nv_fp8x4_e8m0", crate::fp::E8M0, 4: x y z w);
packed!(Fp6x2E2M3, "__nv_fp6x2_e2m3", crate::fp::F6E2M3, 2: x y);
packed!(Fp6x4E2M3, "__nv_fp6x4_e2m3", crate::fp::F6E2M3, 4: x y z w);
packed!(Fp6x2E3M2, "__nv_fp6x2_e3m2", crate::fp::F6E3M2, 2: x y);
packed!(Fp6x4E3M2, "__nv_fp6x4_e3m2", crate::fp::F6E3M2, 4: x y z w);
packed!(Fp4x4E2M1, "__nv_fp4x4_e2m1", crate::fp::F4E2M1x2, 2: x y);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_cuda() {
        // (size, align) from vector_types.h (CUDA 13, 64-bit Linux).
        let cases: [(&str, usize, usize, usize, usize); 10] = [
            ("char2", size_of::<Char2>(), align_of::<Char2>(), 2, 2),
            ("short4", size_of::<Short4>(), align_of::<Short4>(), 8, 8),
            ("int3", size_of::<Int3>(), align_of::<Int3>(), 12, 4),
            ("float2", size_of::<Float2>(), align_of::<Float2>(), 8, 8),
            ("long2", size_of::<Long2>(), align_of::<Long2>(), 16, 16),
            (
                "double3",
                size_of::<Double3>(),
                align_of::<Double3>(),
                24,
                8,
            ),
            (
                "longlong4",
                size_of::<LongLong4>(),
                align_of::<LongLong4>(),
                32,
                16,
            ),
            ("__half2", size_of::<Half2>(), align_of::<Half2>(), 4, 4),
            (
                "__nv_bfloat162",
                size_of::<BFloat162>(),
                align_of::<BFloat162>(),
                4,
                4,
            ),
            (
                "ulonglong4_32a",
                size_of::<ULongLong4A32>(),
                align_of::<ULongLong4A32>(),
                32,
                32,
            ),
        ];
        for (name, size, align, want_size, want_align) in cases {
            assert_eq!((size, align), (want_size, want_align), "{name}");
        }
    }

    #[test]
    fn field_offsets_are_c_order() {
        let v = Int4::new(1, 2, 3, 4);
        assert_eq!(bytemuck::cast::<Int4, [i32; 4]>(v), [1, 2, 3, 4]);
        assert_eq!(std::mem::offset_of!(Double2, y), 8);
    }
}

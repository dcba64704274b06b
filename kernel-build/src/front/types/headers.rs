//! Names the CUDA and C headers provide: fixed-width integers, `size_t` and friends,
//! half and bfloat16 types, the FP8/FP6/FP4 types of `cuda_fp8.h`, `cuda_fp6.h` and
//! `cuda_fp4.h` (and their packed `x2`/`x4` forms), complex numbers of `cuComplex.h`,
//! texture and surface object handles, and the vector types of `vector_types.h`.

use crate::model::{CType, Scalar};

/// The type a name from the CUDA or C headers stands for (`size_t`, `int64_t`,
/// `__half`, `float4`); `std::` and `::` prefixes are accepted.
pub fn header_type(name: &str) -> Option<CType> {
    let name = name.trim_start_matches("::");
    let name = name.strip_prefix("std::").unwrap_or(name);
    let scalar = match name {
        "int8_t" => Some(Scalar::I8),
        "int16_t" => Some(Scalar::I16),
        "int32_t" => Some(Scalar::I32),
        "int64_t" | "intmax_t" => Some(Scalar::I64),
        "uint8_t" => Some(Scalar::U8),
        "uint16_t" => Some(Scalar::U16),
        "uint32_t" => Some(Scalar::U32),
        "uint64_t" | "uintmax_t" => Some(Scalar::U64),
        "size_t" | "uintptr_t" => Some(Scalar::Usize),
        "ptrdiff_t" | "ssize_t" | "intptr_t" => Some(Scalar::Isize),
        "__half" | "half" => Some(Scalar::F16),
        "__nv_bfloat16" | "nv_bfloat16" => Some(Scalar::BF16),
        // Raw storage of the 16-bit floats, and of the narrow floats.
        "__half_raw" | "__nv_bfloat16_raw" => Some(Scalar::U16),
        "__nv_fp8_storage_t"
        | "__nv_fp6_storage_t"
        | "__nv_fp4_storage_t"
        | "__nv_fp4x2_storage_t" => Some(Scalar::U8),
        "__nv_fp8x2_storage_t" | "__nv_fp6x2_storage_t" | "__nv_fp4x4_storage_t" => {
            Some(Scalar::U16)
        }
        "__nv_fp8x4_storage_t" | "__nv_fp6x4_storage_t" => Some(Scalar::U32),
        "__nv_fp8_e4m3" => Some(Scalar::Fp8E4M3),
        "__nv_fp8_e5m2" => Some(Scalar::Fp8E5M2),
        "__nv_fp8_e8m0" => Some(Scalar::Fp8E8M0),
        "__nv_fp6_e2m3" => Some(Scalar::Fp6E2M3),
        "__nv_fp6_e3m2" => Some(Scalar::Fp6E3M2),
        "__nv_fp4_e2m1" => Some(Scalar::Fp4E2M1),
        "__nv_fp4x2_e2m1" => Some(Scalar::Fp4x2E2M1),
        // Texture and surface objects (`unsigned long long` in `texture_types.h` /
        // `surface_types.h`) keep their identity: stubs take the runtime's objects.
        "cudaTextureObject_t" | "CUtexObject" => Some(Scalar::TexObject),
        "cudaSurfaceObject_t" | "CUsurfObject" => Some(Scalar::SurfObject),
        // TMA descriptors (`cuda.h`, `alignas(128)`): stubs take the runtime's `TensorMap`.
        "CUtensorMap" | "CUtensorMap_st" => Some(Scalar::TensorMap),
        // Graph conditional handles (`unsigned long long`): stubs take the runtime's
        // `Condition` of the graph being built.
        "cudaGraphConditionalHandle" | "CUgraphConditionalHandle" => Some(Scalar::GraphCondition),
        // Executable graphs (`struct CUgraphExec_st*`) launched from device code: stubs take
        // the runtime's `DeviceGraph`.
        "cudaGraphExec_t" | "CUgraphExec" => Some(Scalar::GraphExec),
        // `long` on 64-bit Linux.
        "clock_t" | "time_t" => Some(Scalar::I64),
        // `cufft.h`: `cufftReal` is `float`, `cufftDoubleReal` is `double`.
        "cufftReal" => Some(Scalar::F32),
        "cufftDoubleReal" => Some(Scalar::F64),
        _ => None,
    };
    if let Some(s) = scalar {
        return Some(CType::Scalar(s));
    }
    match name {
        "__half2" | "half2" => {
            return Some(CType::Vector {
                elem: Scalar::F16,
                lanes: 2,
            });
        }
        "__nv_bfloat162" | "nv_bfloat162" => {
            return Some(CType::Vector {
                elem: Scalar::BF16,
                lanes: 2,
            });
        }
        "dim3" => {
            return Some(CType::Vector {
                elem: Scalar::U32,
                lanes: 3,
            });
        }
        // `cuComplex.h`: typedefs of `float2` and `double2`.
        "cuComplex" | "cuFloatComplex" | "cufftComplex" => {
            return Some(CType::Vector {
                elem: Scalar::F32,
                lanes: 2,
            });
        }
        "cuDoubleComplex" | "cufftDoubleComplex" => {
            return Some(CType::Vector {
                elem: Scalar::F64,
                lanes: 2,
            });
        }
        _ => {}
    }
    if let Some(v) = narrow_float_vector(name) {
        return Some(v);
    }
    let name = name.strip_suffix("_16a").unwrap_or(name);
    let lanes = name
        .chars()
        .last()?
        .to_digit(10)
        .filter(|l| (1..=4).contains(l))? as u8;
    let elem = match &name[..name.len() - 1] {
        "char" => Scalar::I8,
        "uchar" => Scalar::U8,
        "short" => Scalar::I16,
        "ushort" => Scalar::U16,
        "int" => Scalar::I32,
        "uint" => Scalar::U32,
        // `long` lanes are 64-bit only where `long` is (not on Windows).
        "long" if cuda_kernel_objects::ctypes::long_is_64_bits() => Scalar::I64,
        "ulong" if cuda_kernel_objects::ctypes::long_is_64_bits() => Scalar::U64,
        "longlong" => Scalar::I64,
        "ulonglong" => Scalar::U64,
        "float" => Scalar::F32,
        "double" => Scalar::F64,
        _ => return None,
    };
    Some(CType::Vector { elem, lanes })
}

/// The packed narrow-float types: `__nv_fp8x2_e4m3` (two lanes of `__nv_fp8_e4m3`),
/// `__nv_fp6x4_e2m3`, and `__nv_fp4x4_e2m1` (two lanes of the packed pair
/// `__nv_fp4x2_e2m1`). Each is aligned to its size, as the headers declare it.
fn narrow_float_vector(name: &str) -> Option<CType> {
    let rest = name.strip_prefix("__nv_fp")?;
    // One digit of bits; a name that ends there, or goes on with a character of several
    // bytes, is no such type.
    let bits = rest.get(..1)?;
    let rest = &rest[1..];
    let (lanes, format) = rest.strip_prefix('x')?.split_once('_')?;
    let lanes: u8 = lanes.parse().ok()?;
    let elem = match (bits, format, lanes) {
        ("8", "e4m3", 2 | 4) => Scalar::Fp8E4M3,
        ("8", "e5m2", 2 | 4) => Scalar::Fp8E5M2,
        ("8", "e8m0", 2 | 4) => Scalar::Fp8E8M0,
        ("6", "e2m3", 2 | 4) => Scalar::Fp6E2M3,
        ("6", "e3m2", 2 | 4) => Scalar::Fp6E3M2,
        ("4", "e2m1", 4) => {
            return Some(CType::Vector {
                elem: Scalar::Fp4x2E2M1,
                lanes: 2,
            });
        }
        _ => return None,
    };
    Some(CType::Vector { elem, lanes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::types::size_align;

    #[test]
    fn narrow_floats_have_cuda_layouts() {
        // (name, size, align) from cuda_fp8.hpp, cuda_fp6.hpp, cuda_fp4.hpp (CUDA 13).
        let cases = [
            ("__nv_fp8_e4m3", 1, 1),
            ("__nv_fp8_e5m2", 1, 1),
            ("__nv_fp8_e8m0", 1, 1),
            ("__nv_fp8x2_e4m3", 2, 2),
            ("__nv_fp8x4_e5m2", 4, 4),
            ("__nv_fp8x4_e8m0", 4, 4),
            ("__nv_fp6_e2m3", 1, 1),
            ("__nv_fp6x2_e3m2", 2, 2),
            ("__nv_fp6x4_e2m3", 4, 4),
            ("__nv_fp4_e2m1", 1, 1),
            ("__nv_fp4x2_e2m1", 1, 1),
            ("__nv_fp4x4_e2m1", 2, 2),
            ("cuComplex", 8, 8),
            ("cuDoubleComplex", 16, 16),
            ("dim3", 12, 4),
            ("cudaTextureObject_t", 8, 8),
            ("CUtensorMap", 128, 128),
            ("clock_t", 8, 8),
            ("cufftComplex", 8, 8),
        ];
        for (name, size, align) in cases {
            let ty = header_type(name).unwrap_or_else(|| panic!("{name} unknown"));
            assert_eq!(size_align(&ty, &[]), Some((size, align)), "{name}");
        }
        assert_eq!(header_type("__nv_fp4x2_e3m2"), None);
        assert_eq!(header_type("__nv_fp8x3_e4m3"), None);
    }

    #[test]
    fn header_types_cover_stdint_and_vectors() {
        use crate::model::{CType, Scalar};
        assert_eq!(
            header_type("std::uint32_t"),
            Some(CType::Scalar(Scalar::U32))
        );
        assert_eq!(
            header_type("uchar4"),
            Some(CType::Vector {
                elem: Scalar::U8,
                lanes: 4
            })
        );
        assert_eq!(header_type("my_t"), None);
    }
}

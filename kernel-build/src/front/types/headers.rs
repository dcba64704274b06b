//! Names the CUDA and C headers provide: fixed-width integers, `size_t` and friends,
//! half and bfloat16 types, and the vector types of `vector_types.h`.

use crate::model::{CType, Scalar};

/// The type a name from the CUDA or C headers stands for (`size_t`, `int64_t`,
/// `__half`, `float4`); `std::` and `::` prefixes are accepted.
///
/// ```
/// use kernel_build::front::types::header_type;
/// use kernel_build::model::{CType, Scalar};
/// assert_eq!(header_type("std::uint32_t"), Some(CType::Scalar(Scalar::U32)));
/// assert_eq!(header_type("uchar4"), Some(CType::Vector { elem: Scalar::U8, lanes: 4 }));
/// assert_eq!(header_type("my_t"), None);
/// ```
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
        _ => {}
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
        "long" | "longlong" => Scalar::I64,
        "ulong" | "ulonglong" => Scalar::U64,
        "float" => Scalar::F32,
        "double" => Scalar::F64,
        _ => return None,
    };
    Some(CType::Vector { elem, lanes })
}

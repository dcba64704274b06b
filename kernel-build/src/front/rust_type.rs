//! The Rust side of each C type, as the launch stubs spell it.
//!
//! Scalars map to Rust primitives (`size_t` → `usize`), `__half`/`__nv_bfloat16` to
//! `half::f16`/`half::bf16`, CUDA vector types to the runtime's aligned types
//! (`cuda_kernel_runtime::vector::Float2`), structs to the generated `#[repr(C)]` type of
//! the same name. `const T*` is a shared borrow of device memory (`ConstPtr<T>`),
//! `T*` an exclusive one (`MutPtr<T>`), and `void*` or `T**` a raw device pointer.

use std::fmt;

use crate::model::{CType, Scalar};

/// How a kernel parameter is passed from Rust.
///
/// ```
/// use cuda_kernel_build::__private::front::rust_type::{rust_type, RustType};
/// use cuda_kernel_build::model::{CType, Qualifiers, Scalar};
/// let p = CType::Pointer { pointee: Box::new(CType::Scalar(Scalar::F32)), pointee_quals: Qualifiers { is_const: true, is_volatile: false } };
/// assert_eq!(rust_type(&p), RustType::ConstPtr("f32".into()));
/// assert_eq!(rust_type(&p).to_string(), "ConstPtr<f32>");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RustType {
    /// Passed by value: the Rust type's path.
    Value(String),
    /// `const T*`: a shared borrow of device memory holding `T` (path of `T`).
    ConstPtr(String),
    /// `T*`: an exclusive borrow of device memory holding `T` (path of `T`).
    MutPtr(String),
    /// `void*`, `T**` and other pointers without a checkable element type.
    RawPtr,
    /// A type with no Rust counterpart (`void` by value).
    Unsupported,
}

impl fmt::Display for RustType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RustType::Value(p) => f.write_str(p),
            RustType::ConstPtr(p) => write!(f, "ConstPtr<{p}>"),
            RustType::MutPtr(p) => write!(f, "MutPtr<{p}>"),
            RustType::RawPtr => f.write_str("RawPtr"),
            RustType::Unsupported => f.write_str("(none)"),
        }
    }
}

/// The Rust type of a parameter of C type `ty` (top-level qualifiers already dropped).
///
/// ```
/// use cuda_kernel_build::__private::front::rust_type::{rust_type, RustType};
/// use cuda_kernel_build::model::{CType, Scalar};
/// assert_eq!(rust_type(&CType::Vector { elem: Scalar::U8, lanes: 4 }), RustType::Value("cuda_kernel_runtime::vector::UChar4".into()));
/// ```
pub fn rust_type(ty: &CType) -> RustType {
    match ty {
        CType::Pointer {
            pointee,
            pointee_quals,
        } => match value_path(pointee) {
            Some(p) if !matches!(**pointee, CType::Pointer { .. }) => {
                if pointee_quals.is_const {
                    RustType::ConstPtr(p)
                } else {
                    RustType::MutPtr(p)
                }
            }
            _ => RustType::RawPtr,
        },
        other => value_path(other).map_or(RustType::Unsupported, RustType::Value),
    }
}

/// The Rust path of a by-value C type (`None` for `void` and pointers).
///
/// ```
/// use cuda_kernel_build::__private::front::rust_type::value_path;
/// use cuda_kernel_build::model::{CType, Scalar};
/// assert_eq!(value_path(&CType::Scalar(Scalar::F16)).unwrap(), "half::f16");
/// assert_eq!(value_path(&CType::Struct("geo::Pt".into())).unwrap(), "geo::Pt");
/// ```
pub fn value_path(ty: &CType) -> Option<String> {
    Some(match ty {
        CType::Void | CType::Pointer { .. } => return None,
        CType::Scalar(s) => scalar_path(*s).to_string(),
        CType::Vector { elem, lanes } => {
            format!(
                "cuda_kernel_runtime::vector::{}",
                vector_name(*elem, *lanes)
            )
        }
        CType::Struct(name) => name.clone(),
        CType::Array { elem, len } => format!(
            "[{}; {len}]",
            value_path(elem).unwrap_or_else(|| "u64".into())
        ),
    })
}

/// The Rust name of a scalar type: a primitive (`f32`, `usize`), or for the two 16-bit
/// floats the name of the `half` type (`f16`, `bf16`), without its crate.
///
/// Codegen and the declaration check use this name; [`scalar_path`] adds the crate.
///
/// ```
/// use cuda_kernel_build::__private::front::rust_type::scalar_name;
/// use cuda_kernel_build::model::Scalar;
/// assert_eq!(scalar_name(Scalar::U64), "u64");
/// assert_eq!(scalar_name(Scalar::F16), "f16");
/// ```
pub fn scalar_name(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "bool",
        Scalar::I8 => "i8",
        Scalar::I16 => "i16",
        Scalar::I32 => "i32",
        Scalar::I64 => "i64",
        Scalar::U8 => "u8",
        Scalar::U16 => "u16",
        Scalar::U32 => "u32",
        Scalar::U64 => "u64",
        Scalar::Usize => "usize",
        Scalar::Isize => "isize",
        Scalar::F32 => "f32",
        Scalar::F64 => "f64",
        Scalar::F16 => "f16",
        Scalar::BF16 => "bf16",
        Scalar::Fp8E4M3 => "F8E4M3",
        Scalar::Fp8E5M2 => "F8E5M2",
        Scalar::Fp8E8M0 => "E8M0",
        Scalar::Fp6E2M3 => "F6E2M3",
        Scalar::Fp6E3M2 => "F6E3M2",
        Scalar::Fp4E2M1 => "F4E2M1",
        Scalar::Fp4x2E2M1 => "F4E2M1x2",
        Scalar::DeviceFn => "RawDevicePtr",
        Scalar::TexObject => "TextureHandle",
        Scalar::SurfObject => "SurfaceHandle",
        Scalar::TensorMap => "TensorMapHandle",
        Scalar::GraphCondition => "ConditionHandle",
        Scalar::GraphExec => "GraphExecHandle",
    }
}

/// The Rust path of a scalar type: [`scalar_name`], with the `half` crate in front of the
/// 16-bit floats.
///
/// ```
/// use cuda_kernel_build::__private::front::rust_type::scalar_path;
/// use cuda_kernel_build::model::Scalar;
/// assert_eq!(scalar_path(Scalar::Isize), "isize");
/// assert_eq!(scalar_path(Scalar::BF16), "half::bf16");
/// ```
pub fn scalar_path(s: Scalar) -> &'static str {
    match s {
        Scalar::F16 => "half::f16",
        Scalar::BF16 => "half::bf16",
        Scalar::Fp8E4M3 => "cuda_kernel_runtime::fp::F8E4M3",
        Scalar::Fp8E5M2 => "cuda_kernel_runtime::fp::F8E5M2",
        Scalar::Fp8E8M0 => "cuda_kernel_runtime::fp::E8M0",
        Scalar::Fp6E2M3 => "cuda_kernel_runtime::fp::F6E2M3",
        Scalar::Fp6E3M2 => "cuda_kernel_runtime::fp::F6E3M2",
        Scalar::Fp4E2M1 => "cuda_kernel_runtime::fp::F4E2M1",
        Scalar::Fp4x2E2M1 => "cuda_kernel_runtime::fp::F4E2M1x2",
        Scalar::DeviceFn => "cuda_kernel_runtime::RawDevicePtr",
        Scalar::TexObject => "cuda_kernel_runtime::TextureHandle",
        Scalar::SurfObject => "cuda_kernel_runtime::SurfaceHandle",
        Scalar::TensorMap => "cuda_kernel_runtime::TensorMapHandle",
        Scalar::GraphCondition => "cuda_kernel_runtime::ConditionHandle",
        Scalar::GraphExec => "cuda_kernel_runtime::GraphExecHandle",
        other => scalar_name(other),
    }
}

/// The name of the `cuda_kernel_runtime::vector` type for a CUDA vector type: CUDA's own name in
/// UpperCamel case (`float2` → `Float2`, `uchar4` → `UChar4`, `__half2` → `Half2`).
///
/// 64-bit lanes are named after `longlong`/`ulonglong` (`LongLong2`, `ULongLong4`), as the
/// front end spells them in C: on 64-bit Linux `long2` and `longlong2` have one layout, and the
/// type model keeps one lane type for both. Four 64-bit lanes are the 16-byte aligned
/// `longlong4` (what `vector_types.h` declares for `longlong4` and `longlong4_16a`).
///
/// ```
/// use cuda_kernel_build::__private::front::rust_type::vector_name;
/// use cuda_kernel_build::model::Scalar;
/// assert_eq!(vector_name(Scalar::F32, 2), "Float2");
/// assert_eq!(vector_name(Scalar::I64, 2), "LongLong2");
/// assert_eq!(vector_name(Scalar::U64, 4), "ULongLong4");
/// ```
pub fn vector_name(elem: Scalar, lanes: u8) -> String {
    let base = match elem {
        Scalar::Bool | Scalar::I8 => "Char",
        Scalar::U8 => "UChar",
        Scalar::I16 => "Short",
        Scalar::U16 => "UShort",
        Scalar::I32 => "Int",
        Scalar::U32 => "UInt",
        Scalar::I64 | Scalar::Isize => "LongLong",
        Scalar::U64 | Scalar::Usize => "ULongLong",
        Scalar::F32 => "Float",
        Scalar::F64 => "Double",
        Scalar::F16 => "Half",
        Scalar::BF16 => "BFloat16",
        // Packed narrow floats: `Fp8x2E4M3`, `Fp6x4E2M3`, `Fp4x4E2M1`.
        Scalar::Fp4x2E2M1 => return format!("Fp4x{}E2M1", 2 * lanes),
        narrow => {
            let name = scalar_name(narrow);
            let bits = match narrow {
                Scalar::Fp6E2M3 | Scalar::Fp6E3M2 => "6",
                Scalar::Fp4E2M1 => "4",
                _ => "8",
            };
            let format = name.strip_prefix('F').map_or(name, |r| &r[1..]);
            return format!("Fp{bits}x{lanes}{format}");
        }
    };
    format!("{base}{lanes}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Qualifiers;

    fn ptr(t: CType, is_const: bool) -> CType {
        CType::Pointer {
            pointee: Box::new(t),
            pointee_quals: Qualifiers {
                is_const,
                is_volatile: false,
            },
        }
    }

    #[test]
    fn pointers_by_constness_and_depth() {
        let f = CType::Scalar(Scalar::F32);
        assert_eq!(
            rust_type(&ptr(f.clone(), false)),
            RustType::MutPtr("f32".into())
        );
        assert_eq!(rust_type(&ptr(ptr(f, true), true)), RustType::RawPtr);
        assert_eq!(rust_type(&ptr(CType::Void, true)), RustType::RawPtr);
        assert_eq!(rust_type(&CType::Void), RustType::Unsupported);
    }
}

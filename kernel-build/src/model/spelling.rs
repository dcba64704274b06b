//! C spellings of resolved types, as the user would write them.

use crate::model::{CType, Qualifiers, Scalar};

/// The C spelling of a resolved type (`const float*`, `unsigned long long`, `float2`).
pub fn c_spelling(ty: &CType) -> String {
    match ty {
        CType::Void => "void".into(),
        CType::Scalar(s) => scalar_spelling(*s).into(),
        CType::Vector { elem, lanes } => vector_spelling(*elem, *lanes),
        CType::Struct(name) => name.clone(),
        CType::Pointer {
            pointee,
            pointee_quals,
        } => {
            let q = quals_prefix(*pointee_quals);
            if let CType::Array { .. } = **pointee {
                // A pointer to arrays: `const float (*)[2][3]`.
                let (elem, dims) = array_parts(pointee);
                return format!("{q}{} (*){dims}", c_spelling(elem));
            }
            let inner = c_spelling(pointee);
            if matches!(**pointee, CType::Pointer { .. }) {
                let q = q.trim_end();
                if q.is_empty() {
                    format!("{inner}*")
                } else {
                    format!("{inner} {q}*")
                }
            } else {
                format!("{q}{inner}*")
            }
        }
        CType::Array { .. } => {
            let (elem, dims) = array_parts(ty);
            format!("{}{dims}", c_spelling(elem))
        }
    }
}

/// An array type's element and its extents, outermost first as C writes them (`int[3][2]`
/// is 3 arrays of 2).
fn array_parts(ty: &CType) -> (&CType, String) {
    let mut dims = String::new();
    let mut t = ty;
    while let CType::Array { elem, len } = t {
        dims.push_str(&format!("[{len}]"));
        t = elem;
    }
    (t, dims)
}

/// `const ` / `volatile ` prefixes for `q`, each followed by a space.
fn quals_prefix(q: Qualifiers) -> String {
    let mut s = String::new();
    if q.is_const {
        s.push_str("const ");
    }
    if q.is_volatile {
        s.push_str("volatile ");
    }
    s
}

/// The canonical C name of a scalar.
pub fn scalar_spelling(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "bool",
        Scalar::I8 => "char",
        Scalar::I16 => "short",
        Scalar::I32 => "int",
        Scalar::I64 => "long long",
        Scalar::U8 => "unsigned char",
        Scalar::U16 => "unsigned short",
        Scalar::U32 => "unsigned int",
        Scalar::U64 => "unsigned long long",
        Scalar::Usize => "size_t",
        Scalar::Isize => "ptrdiff_t",
        Scalar::F32 => "float",
        Scalar::F64 => "double",
        Scalar::F16 => "__half",
        Scalar::BF16 => "__nv_bfloat16",
        Scalar::Fp8E4M3 => "__nv_fp8_e4m3",
        Scalar::Fp8E5M2 => "__nv_fp8_e5m2",
        Scalar::Fp8E8M0 => "__nv_fp8_e8m0",
        Scalar::Fp6E2M3 => "__nv_fp6_e2m3",
        Scalar::Fp6E3M2 => "__nv_fp6_e3m2",
        Scalar::Fp4E2M1 => "__nv_fp4_e2m1",
        Scalar::Fp4x2E2M1 => "__nv_fp4x2_e2m1",
        Scalar::DeviceFn => "void (*)(...)",
        Scalar::TexObject => "cudaTextureObject_t",
        Scalar::SurfObject => "cudaSurfaceObject_t",
        Scalar::TensorMap => "CUtensorMap",
        Scalar::GraphCondition => "cudaGraphConditionalHandle",
        Scalar::GraphExec => "cudaGraphExec_t",
    }
}

/// The CUDA name of a vector type (`float4`, `__half2`).
fn vector_spelling(elem: Scalar, lanes: u8) -> String {
    let base = match elem {
        Scalar::I8 | Scalar::Bool => "char",
        Scalar::U8 => "uchar",
        Scalar::I16 => "short",
        Scalar::U16 => "ushort",
        Scalar::I32 => "int",
        Scalar::U32 => "uint",
        Scalar::I64 | Scalar::Isize => "longlong",
        Scalar::U64 | Scalar::Usize => "ulonglong",
        Scalar::F32 => "float",
        Scalar::F64 => "double",
        Scalar::F16 => return "__half2".into(),
        Scalar::BF16 => return "__nv_bfloat162".into(),
        Scalar::Fp4x2E2M1 => return format!("__nv_fp4x{}_e2m1", 2 * lanes),
        narrow => {
            let name = scalar_spelling(narrow);
            let (bits, format) = name["__nv_fp".len()..].split_once('_').unwrap_or(("8", ""));
            return format!("__nv_fp{bits}x{lanes}_{format}");
        }
    };
    format!("{base}{lanes}")
}

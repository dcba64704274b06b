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

/// The canonical C name of a scalar: the table's (`signed char` for `i8`, which plain
/// `char` is not on every host).
pub fn scalar_spelling(s: Scalar) -> &'static str {
    s.c_name()
}

/// The CUDA name of a vector type (`float4`, `__half2`).
fn vector_spelling(elem: Scalar, lanes: u8) -> String {
    let base = match elem {
        Scalar::I8 | Scalar::Char | Scalar::Bool => "char",
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

#[cfg(test)]
mod tests {
    use cuda_kernel_objects::ctypes::{self, VECTORS};

    use super::*;
    use crate::front::names::read_type;
    use crate::front::types::{TypeEnv, size_align};
    use crate::model::rust::types::{scalar_name, vector_name};

    fn read(text: &str) -> Option<CType> {
        read_type(text, &TypeEnv::default())
    }

    #[test]
    fn the_front_end_reads_every_spelling_of_the_table_as_the_table_means_it() {
        for s in Scalar::ALL {
            if s == Scalar::DeviceFn {
                continue;
            }
            let info = s.info();
            for name in std::iter::once(&info.c_name).chain(info.also) {
                assert_eq!(read(name), Some(CType::Scalar(s)), "`{name}`");
            }
            assert_eq!(scalar_spelling(s), info.c_name);
            assert_eq!(scalar_name(s), info.rust);
            assert_eq!(
                size_align(&CType::Scalar(s), &[]),
                Some((info.size, info.align))
            );
        }
        assert_eq!(read("char"), Some(CType::Scalar(Scalar::Char)));
        let byte = ctypes::plain_char();
        assert_eq!(scalar_name(Scalar::Char), scalar_name(byte));
        assert_eq!(read("signed char"), Some(CType::Scalar(Scalar::I8)));
    }

    #[test]
    fn a_long_is_the_hosts() {
        let long = read("unsigned long");
        if ctypes::long_is_64_bits() {
            assert_eq!(long, Some(CType::Scalar(Scalar::U64)));
        } else {
            assert_eq!(long, None, "refused, not taken for a u64");
        }
    }

    #[test]
    fn every_vector_of_the_table_is_the_models_with_its_layout_and_names() {
        for v in VECTORS {
            let Some(ty) = read(v.c_name) else {
                // Four 64-bit lanes aligned to 32 have no model type: kernels taking them
                // stay untyped.
                assert!(v.c_name.ends_with("_32a"), "`{}` unread", v.c_name);
                continue;
            };
            let CType::Vector { elem, lanes } = ty else {
                panic!("`{}` is {ty:?}", v.c_name);
            };
            assert_eq!(size_align(&ty, &[]), Some((v.size, v.align)), "{v:?}");
            // What the model writes back is a type of the table with the same layout.
            let spelled = ctypes::vector(&c_spelling(&ty)).expect("a table vector");
            assert_eq!((spelled.size, spelled.align), (v.size, v.align), "{v:?}");
            let named = VECTORS
                .iter()
                .find(|t| t.rust == vector_name(elem, lanes))
                .expect("a runtime vector type");
            assert_eq!((named.size, named.align), (v.size, v.align), "{v:?}");
        }
    }
}

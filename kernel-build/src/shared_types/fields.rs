//! A field's Rust type told as the model's C type: the one C → Rust mapping
//! (`model::rust::types`) read backwards, so that a type the generated code spells
//! `vector::Float4` or `fp::F8E4M3` is read here as `float4` or `__nv_fp8_e4m3`.

use syn::spanned::Spanned;

use crate::diagnostics::shared as msg;
use crate::model::rust::{scalar_named, vector_named};
use crate::model::{CType, Scalar};

/// The C type of a field of `owner` named `field` whose Rust type is `ty`; the error is at
/// the type.
pub(super) fn c_type(owner: &str, field: &str, ty: &syn::Type) -> syn::Result<CType> {
    let refuse =
        |why: &str| syn::Error::new(ty.span(), msg::field_type(owner, field, &spelled(ty), why));
    match ty {
        syn::Type::Paren(p) => c_type(owner, field, &p.elem),
        syn::Type::Group(g) => c_type(owner, field, &g.elem),
        syn::Type::Array(a) => {
            let elem = c_type(owner, field, &a.elem)?;
            let len = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => n
                    .base10_parse::<u64>()
                    .map_err(|_| refuse(msg::WHY_ARRAY_LEN))?,
                _ => return Err(refuse(msg::WHY_ARRAY_LEN)),
            };
            Ok(CType::Array {
                elem: Box::new(elem),
                len,
            })
        }
        syn::Type::Reference(_) => Err(refuse(msg::WHY_REFERENCE)),
        syn::Type::Ptr(_) => Err(refuse(msg::WHY_POINTER)),
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return Err(refuse(msg::WHY_NO_LAYOUT));
            };
            if !last.arguments.is_none() {
                return Err(refuse(msg::WHY_NO_LAYOUT));
            }
            named(&last.ident.to_string()).map_err(refuse)
        }
        _ => Err(refuse(msg::WHY_NO_LAYOUT)),
    }
}

/// A Rust type as written, without the token spacing (`&'static f32`, `(f32, f32)`).
fn spelled(ty: &syn::Type) -> String {
    let mut s = quote::ToTokens::to_token_stream(ty).to_string();
    for (from, to) in [
        (" ,", ","),
        ("& ", "&"),
        ("* const", "*const"),
        ("* mut", "*mut"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        (" ;", ";"),
        (" :: ", "::"),
    ] {
        s = s.replace(from, to);
    }
    s
}

/// The C type a Rust type name stands for: a scalar, a vector, a device pointer, or another
/// shared type by name; `Err` with why it cannot cross.
fn named(name: &str) -> Result<CType, &'static str> {
    match name {
        "bool" => return Err(msg::WHY_BOOL),
        "usize" | "isize" => return Err(msg::WHY_USIZE),
        "char" => return Err(msg::WHY_CHAR),
        "str" | "String" | "Vec" | "Box" | "Option" | "PhantomData" => {
            return Err(msg::WHY_NO_LAYOUT);
        }
        "RawDevicePtr" => {
            return Ok(CType::Pointer {
                pointee: Box::new(CType::Void),
                pointee_quals: Default::default(),
            });
        }
        _ => {}
    }
    if let Some(s) = scalar_named(name) {
        // Host-sized integers, handles and device functions have no place in a shared type.
        return match s {
            Scalar::Usize | Scalar::Isize => Err(msg::WHY_USIZE),
            Scalar::Bool => Err(msg::WHY_BOOL),
            Scalar::DeviceFn
            | Scalar::TexObject
            | Scalar::SurfObject
            | Scalar::TensorMap
            | Scalar::GraphCondition
            | Scalar::GraphExec => Err(msg::WHY_NO_LAYOUT),
            s => Ok(CType::Scalar(s)),
        };
    }
    if name.ends_with("A32") {
        return Err(msg::WHY_ALIGN32);
    }
    // `Long2`, `ULong4` and the 16-byte aligned `...4A16` have the layout of the
    // `longlong`/`double` vectors the model keeps.
    let name = name.strip_suffix("A16").unwrap_or(name);
    let name = match name.strip_prefix("Long") {
        Some(rest) => format!("LongLong{rest}"),
        None => match name.strip_prefix("ULong") {
            Some(rest) if !rest.starts_with("Long") => format!("ULongLong{rest}"),
            _ => name.to_string(),
        },
    };
    match vector_named(&name) {
        // `Char4`'s lanes are C's `char`, the signed byte of the runtime's type.
        Some((Scalar::Bool, lanes)) => Ok(CType::Vector {
            elem: Scalar::I8,
            lanes,
        }),
        Some((elem, lanes)) => Ok(CType::Vector { elem, lanes }),
        None => Ok(CType::Struct(name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(src: &str) -> syn::Result<CType> {
        c_type("P", "f", &syn::parse_str(src).unwrap())
    }

    #[test]
    fn the_runtimes_names_read_back_as_c_types() {
        assert_eq!(of("f32").unwrap(), CType::Scalar(Scalar::F32));
        assert_eq!(of("half::bf16").unwrap(), CType::Scalar(Scalar::BF16));
        assert_eq!(of("fp::F8E4M3").unwrap(), CType::Scalar(Scalar::Fp8E4M3));
        let float4 = CType::Vector {
            elem: Scalar::F32,
            lanes: 4,
        };
        assert_eq!(of("cuda_kernel_runtime::vector::Float4").unwrap(), float4);
        assert_eq!(
            of("Long2").unwrap(),
            CType::Vector {
                elem: Scalar::I64,
                lanes: 2
            }
        );
        assert_eq!(
            of("[[u8; 2]; 3]").unwrap(),
            CType::Array {
                elem: Box::new(CType::Array {
                    elem: Box::new(CType::Scalar(Scalar::U8)),
                    len: 2
                }),
                len: 3
            }
        );
        assert_eq!(of("Kind").unwrap(), CType::Struct("Kind".into()));
        assert!(matches!(of("RawDevicePtr").unwrap(), CType::Pointer { .. }));
    }

    #[test]
    fn what_cannot_cross_is_refused_with_why() {
        let why = |src: &str| of(src).unwrap_err().to_string();
        assert!(why("bool").contains("use `u8`"));
        assert!(why("usize").contains("its size is the host's"));
        assert!(why("&'static f32").contains("a reference is a host address"));
        assert!(why("*const f32").contains("a raw pointer is a host address"));
        assert!(why("(f32, f32)").contains("no CUDA layout"));
        assert!(why("Vec<f32>").contains("no CUDA layout"));
        assert!(why("[f32; N]").contains("integer literal"));
        assert!(why("Double4A32").contains("32-byte"));
        assert!(why("bool").starts_with("field `P.f` has type `bool`"));
    }
}

//! The C → Rust type mapping used in generated code.
//!
//! | CUDA C | stub parameter | struct field / global |
//! |---|---|---|
//! | scalars | `f32`, `i32`, `usize`, `bool`, ... | same |
//! | `__half`, `__nv_bfloat16` | `f16`, `bf16` (the `half` crate's, re-exported by the runtime) | same |
//! | `float2`, `int4`, `longlong2`, ... | `vector::Float2`, `vector::Int4`, `vector::LongLong2`, ... | same |
//! | `struct S` | the generated `S` | same |
//! | `const T*` | `impl ConstPtr<T>` | `RawDevicePtr` |
//! | `T*` | `impl MutPtr<T>` | `RawDevicePtr` |
//! | `void*`, `T**` | `RawDevicePtr` | `RawDevicePtr` |
//! | `cudaTextureObject_t` | `&TextureObject<impl Sized>` | `TextureHandle` |
//! | `cudaSurfaceObject_t` | `&SurfaceObject<impl Sized>` | `SurfaceHandle` |
//! | `CUtensorMap` | `&TensorMap<'_, impl Sized>` | `TensorMapHandle` |
//! | `cudaGraphConditionalHandle` | `&Condition<'_>` | `ConditionHandle` |
//! | `cudaGraphExec_t` | `&DeviceGraph<'_>` | `GraphExecHandle` |
//! | `T[N]` | (not a parameter) | `[T; N]` |
//!
//! A pointer parameter's bound is spelled through a hidden trait over `ConstPtr<T>` /
//! `MutPtr<T>` (see `arg_bounds`), so that a mismatch names the kernel and the parameter.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::names::rust_ident;
use crate::front::rust_type::{scalar_name, vector_name};
use crate::model::{CType, Scalar};

/// How a kernel parameter is passed by the stub.
#[derive(Debug)]
pub(crate) enum ParamKind {
    /// By value (scalars, vectors, structs, raw pointers): the stub takes `T`.
    Value(TokenStream),
    /// `const T*`: the stub takes `impl ConstPtr<T>`.
    ConstPtr(TokenStream),
    /// `T*`: the stub takes `impl MutPtr<T>`.
    MutPtr(TokenStream),
    /// A texture or surface object or a TMA tensor map: the stub takes `&Object<impl Sized>`
    /// (the runtime's `TextureObject` / `SurfaceObject` / `TensorMap`) and passes its
    /// handle, of the type given.
    Object {
        /// The object's type, its element type left to the caller.
        object: TokenStream,
        /// `TextureHandle` or `SurfaceHandle`.
        handle: TokenStream,
        /// The object is a kernel argument itself, which orders the memory it describes
        /// across streams (a tensor map); otherwise its handle is passed by value.
        ordered: bool,
    },
}

/// Tokens of a scalar type.
pub(crate) fn scalar_tokens(s: Scalar, rt: &TokenStream) -> TokenStream {
    let id = format_ident!("{}", scalar_name(s));
    match s {
        Scalar::F16 | Scalar::BF16 => quote!(#rt::#id),
        Scalar::Fp8E4M3
        | Scalar::Fp8E5M2
        | Scalar::Fp8E8M0
        | Scalar::Fp6E2M3
        | Scalar::Fp6E3M2
        | Scalar::Fp4E2M1
        | Scalar::Fp4x2E2M1 => quote!(#rt::fp::#id),
        // A device function's address is passed like any raw device address.
        Scalar::DeviceFn => quote!(#rt::RawDevicePtr),
        Scalar::TexObject => quote!(#rt::TextureHandle),
        Scalar::SurfObject => quote!(#rt::SurfaceHandle),
        Scalar::TensorMap => quote!(#rt::TensorMapHandle),
        Scalar::GraphCondition => quote!(#rt::ConditionHandle),
        Scalar::GraphExec => quote!(#rt::GraphExecHandle),
        _ => quote!(#id),
    }
}

/// Tokens of a type stored by value (struct field, global, pointee, by-value param).
pub(crate) fn value_tokens(ty: &CType, rt: &TokenStream) -> TokenStream {
    match ty {
        CType::Scalar(s) => scalar_tokens(*s, rt),
        CType::Vector { elem, lanes } => {
            let id = format_ident!("{}", vector_name(*elem, *lanes));
            quote!(#rt::vector::#id)
        }
        CType::Struct(name) => {
            let id = rust_ident(name);
            quote!(#id)
        }
        CType::Array { elem, len } => {
            let elem = value_tokens(elem, rt);
            let len = *len as usize;
            quote!([#elem; #len])
        }
        CType::Pointer { .. } => quote!(#rt::RawDevicePtr),
        // `void` by value cannot occur after the front end; a unit keeps codegen total.
        CType::Void => quote!(()),
    }
}

/// Whether the runtime takes a by-value parameter of type `ty` as it is: scalars, vector
/// types and raw device pointers are kernel arguments of their own; structs and texture or
/// surface handles go wrapped in `ByValue`.
pub(crate) fn passes_bare(ty: &CType) -> bool {
    match ty {
        CType::Scalar(
            Scalar::TexObject
            | Scalar::SurfObject
            | Scalar::TensorMap
            | Scalar::GraphCondition
            | Scalar::GraphExec,
        ) => false,
        CType::Scalar(_) | CType::Vector { .. } => true,
        CType::Pointer { pointee, .. } => matches!(
            pointee.as_ref(),
            CType::Void | CType::Pointer { .. } | CType::Array { .. }
        ),
        CType::Struct(_) | CType::Array { .. } | CType::Void => false,
    }
}

/// How a parameter of type `ty` is passed.
pub(crate) fn param_kind(ty: &CType, rt: &TokenStream) -> ParamKind {
    match ty {
        CType::Pointer {
            pointee,
            pointee_quals,
        } => match pointee.as_ref() {
            CType::Void | CType::Pointer { .. } | CType::Array { .. } => {
                ParamKind::Value(quote!(#rt::RawDevicePtr))
            }
            elem => {
                let elem = value_tokens(elem, rt);
                if pointee_quals.is_const {
                    ParamKind::ConstPtr(elem)
                } else {
                    ParamKind::MutPtr(elem)
                }
            }
        },
        CType::Scalar(Scalar::TexObject) => ParamKind::Object {
            object: quote!(#rt::TextureObject<impl ::core::marker::Sized>),
            handle: quote!(#rt::TextureHandle),
            ordered: false,
        },
        CType::Scalar(Scalar::SurfObject) => ParamKind::Object {
            object: quote!(#rt::SurfaceObject<impl ::core::marker::Sized>),
            handle: quote!(#rt::SurfaceHandle),
            ordered: false,
        },
        CType::Scalar(Scalar::TensorMap) => ParamKind::Object {
            object: quote!(#rt::TensorMap<'_, impl ::core::marker::Sized>),
            handle: quote!(#rt::TensorMapHandle),
            ordered: true,
        },
        CType::Scalar(Scalar::GraphCondition) => ParamKind::Object {
            object: quote!(#rt::Condition<'_>),
            handle: quote!(#rt::ConditionHandle),
            ordered: false,
        },
        CType::Scalar(Scalar::GraphExec) => ParamKind::Object {
            object: quote!(#rt::DeviceGraph<'_>),
            handle: quote!(#rt::GraphExecHandle),
            ordered: false,
        },
        other => ParamKind::Value(value_tokens(other, rt)),
    }
}

/// The C spelling of a type, for docs and messages: the front end's, so that the
/// generated docs and metadata name types exactly as diagnostics do.
pub use crate::front::types::c_spelling;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Qualifiers;

    fn ptr(elem: CType, is_const: bool) -> CType {
        CType::Pointer {
            pointee: Box::new(elem),
            pointee_quals: Qualifiers {
                is_const,
                is_volatile: false,
            },
        }
    }

    #[test]
    fn pointers_map_by_constness_and_pointee() {
        let rt = quote!(rt);
        let f = CType::Scalar(Scalar::F32);
        assert!(
            matches!(param_kind(&ptr(f.clone(), true), &rt), ParamKind::ConstPtr(t) if t.to_string() == "f32")
        );
        assert!(matches!(
            param_kind(&ptr(f.clone(), false), &rt),
            ParamKind::MutPtr(_)
        ));
        let raw = param_kind(&ptr(ptr(f, false), false), &rt);
        assert!(matches!(raw, ParamKind::Value(t) if t.to_string().contains("RawDevicePtr")));
        let void = param_kind(&ptr(CType::Void, true), &rt);
        assert!(matches!(void, ParamKind::Value(_)));
    }

    #[test]
    fn arrays_nest_and_halves_use_the_runtime_path() {
        let rt = quote!(rt);
        let a = CType::Array {
            elem: Box::new(CType::Array {
                elem: Box::new(CType::Scalar(Scalar::F16)),
                len: 2,
            }),
            len: 3,
        };
        assert_eq!(
            value_tokens(&a, &rt).to_string(),
            "[[rt :: f16 ; 2usize] ; 3usize]"
        );
        assert_eq!(c_spelling(&a), "__half[3][2]");
    }

    #[test]
    fn vector_spelling_matches_cuda_names() {
        let v = CType::Vector {
            elem: Scalar::U32,
            lanes: 4,
        };
        assert_eq!(c_spelling(&v), "uint4");
        assert_eq!(
            value_tokens(&v, &quote!(rt)).to_string(),
            "rt :: vector :: UInt4"
        );
    }

    #[test]
    fn long_vectors_use_the_front_end_name() {
        let v = CType::Vector {
            elem: Scalar::I64,
            lanes: 2,
        };
        assert_eq!(c_spelling(&v), "longlong2");
        assert_eq!(
            value_tokens(&v, &quote!(rt)).to_string(),
            "rt :: vector :: LongLong2"
        );
    }
}

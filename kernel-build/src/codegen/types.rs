//! Tokens of the model's Rust types ([`crate::model::rust`]), under the runtime's path.
//!
//! How each C type is passed and stored is decided there, once; this file only spells the
//! decision in tokens. The launch methods are spelled here once ([`spell`]): each
//! parameter's name and way of passing, a template family's keys and varying types, which
//! the stubs, their docs, their argument bounds and the template traits then read. A
//! pointer parameter's bound is spelled through a hidden trait over `ConstPtr<T>` /
//! `MutPtr<T>` (see `arg_bounds`), so that a mismatch names the kernel and the parameter.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::model::rust::{
    Passing, Planned, RuntimeObject, RustType, param_ident, passes_bare, passing, passing_param,
    stored,
};
use crate::model::{CType, EnumDef, Param};

/// A launch method spelled in tokens.
pub(crate) struct Spelled {
    /// Its parameters, in order.
    pub params: Vec<SpelledParam>,
    /// A template family's instantiations, in the plan's order (none for one kernel).
    pub members: Vec<SpelledMember>,
}

/// A parameter of a launch method, spelled.
pub(crate) struct SpelledParam {
    /// The stub's name for it.
    pub ident: Ident,
    /// How the stub takes it (a family's varying type through its template trait).
    pub kind: ParamKind,
    /// A value the runtime takes as it is (a scalar, a vector type, a raw pointer): no
    /// `ByValue` wrapper.
    pub bare: bool,
    /// How the docs describe it and its bound classes it: as the kernel (a family's first
    /// instantiation) takes it.
    pub described: ParamKind,
}

/// One instantiation of a template family, spelled.
pub(crate) struct SpelledMember {
    /// The Rust type, or tuple, that selects it.
    pub key: TokenStream,
    /// Per parameter, its Rust type in this instantiation where it varies.
    pub types: Vec<Option<TokenStream>>,
}

/// Every planned method spelled, in the plan's order.
pub(crate) fn spell(planned: &[Planned<'_>], enums: &[EnumDef], rt: &TokenStream) -> Vec<Spelled> {
    planned
        .iter()
        .map(|planned| match planned {
            Planned::Single { kernel, .. } => Spelled {
                params: kernel
                    .params
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let (kind, bare) = param_kind_of(p, enums, rt);
                        SpelledParam {
                            ident: param_ident(p.name.as_deref(), i),
                            described: kind.clone(),
                            kind,
                            bare,
                        }
                    })
                    .collect(),
                members: Vec::new(),
            },
            Planned::Family {
                trait_name,
                members,
                assoc,
                ..
            } => Spelled {
                params: members[0]
                    .kernel
                    .params
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let described = param_kind(&p.ty, rt);
                        // A value whose type varies is only known to be `DeviceRepr`: it goes
                        // wrapped.
                        let (kind, bare) = match &assoc[i] {
                            Some(id) => {
                                let ty = quote!(<T as templates::#trait_name>::#id);
                                let kind = match passing(&p.ty).shape() {
                                    0 => ParamKind::Value(ty),
                                    1 => ParamKind::ConstPtr(ty),
                                    _ => ParamKind::MutPtr(ty),
                                };
                                (kind, false)
                            }
                            None => (param_kind(&p.ty, rt), passes_bare(&p.ty)),
                        };
                        SpelledParam {
                            ident: param_ident(p.name.as_deref(), i),
                            kind,
                            bare,
                            described,
                        }
                    })
                    .collect(),
                members: members
                    .iter()
                    .map(|m| SpelledMember {
                        key: key_tokens(&m.key, rt),
                        types: assoc
                            .iter()
                            .enumerate()
                            .map(|(i, id)| {
                                id.as_ref().map(|_| {
                                    type_tokens(&passing(&m.kernel.params[i].ty).rust_type(), rt)
                                })
                            })
                            .collect(),
                    })
                    .collect(),
            },
        })
        .collect()
}

/// How a kernel parameter is passed by the stub, in tokens.
#[derive(Clone, Debug)]
pub(crate) enum ParamKind {
    /// By value (scalars, vectors, structs, raw pointers): the stub takes `T`.
    Value(TokenStream),
    /// `const T*`: the stub takes `impl ConstPtr<T>`.
    ConstPtr(TokenStream),
    /// `T*`: the stub takes `impl MutPtr<T>`.
    MutPtr(TokenStream),
    /// A texture or surface object or a TMA tensor map: the stub takes `&Object<impl Sized>`
    /// (the runtime's `TextureObject` / `SurfaceObject` / `TensorMap`) and passes its
    /// handle (the model's `RuntimeObject::handle`).
    Object {
        /// The object's type, its element type left to the caller.
        object: TokenStream,
        /// The object is a kernel argument itself, which orders the memory it describes
        /// across streams (a tensor map); otherwise its handle is passed by value.
        ordered: bool,
    },
}

/// Tokens of a Rust type.
pub(crate) fn type_tokens(ty: &RustType, rt: &TokenStream) -> TokenStream {
    match ty {
        RustType::Primitive(name) => {
            let id = format_ident!("{}", name);
            quote!(#id)
        }
        RustType::Runtime(path) => {
            let segments = path.split("::").map(|s| format_ident!("{}", s));
            quote!(#rt #(::#segments)*)
        }
        RustType::Struct(name) => {
            let id = match name.strip_prefix("r#") {
                Some(raw) => Ident::new_raw(raw, Span::call_site()),
                None => Ident::new(name, Span::call_site()),
            };
            quote!(#id)
        }
        RustType::Array(elem, len) => {
            let elem = type_tokens(elem, rt);
            let len = *len as usize;
            quote!([#elem; #len])
        }
        RustType::Unit => quote!(()),
    }
}

/// Tokens of the type a C type is stored as (struct field, global, pointee).
pub(crate) fn value_tokens(ty: &CType, rt: &TokenStream) -> TokenStream {
    type_tokens(&stored(ty), rt)
}

/// Tokens of the Rust types that select a family's instantiation: one type, or a tuple.
fn key_tokens(key: &[RustType], rt: &TokenStream) -> TokenStream {
    match key {
        [one] => type_tokens(one, rt),
        many => {
            let many = many.iter().map(|t| type_tokens(t, rt));
            quote!((#(#many),*))
        }
    }
}

/// How a parameter of type `ty` is passed, in tokens.
pub(crate) fn param_kind(ty: &CType, rt: &TokenStream) -> ParamKind {
    kind_of(passing(ty), rt)
}

/// How `param` of a kernel is passed, in tokens (a parameter of an enumeration takes its
/// Rust enum), and whether it goes as it is (else wrapped in `ByValue`).
fn param_kind_of(param: &Param, enums: &[EnumDef], rt: &TokenStream) -> (ParamKind, bool) {
    let (passing, bare) = passing_param(param, enums);
    (kind_of(passing, rt), bare)
}

/// A way of passing, in tokens.
fn kind_of(passing: Passing, rt: &TokenStream) -> ParamKind {
    match passing {
        Passing::Value(t) => ParamKind::Value(type_tokens(&t, rt)),
        Passing::ConstPtr(t) => ParamKind::ConstPtr(type_tokens(&t, rt)),
        Passing::MutPtr(t) => ParamKind::MutPtr(type_tokens(&t, rt)),
        Passing::Object(o) => ParamKind::Object {
            object: match o {
                RuntimeObject::Texture => quote!(#rt::TextureObject<impl ::core::marker::Sized>),
                RuntimeObject::Surface => quote!(#rt::SurfaceObject<impl ::core::marker::Sized>),
                RuntimeObject::TensorMap => {
                    quote!(#rt::TensorMap<'_, impl ::core::marker::Sized>)
                }
                RuntimeObject::Condition => quote!(#rt::Condition<'_>),
                RuntimeObject::DeviceGraph => quote!(#rt::DeviceGraph<'_>),
            },
            ordered: o.ordered(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scalar;

    fn ptr(elem: CType, is_const: bool) -> CType {
        CType::pointer(elem, is_const)
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
    }

    #[test]
    fn vectors_and_keywords() {
        let v = CType::Vector {
            elem: Scalar::I64,
            lanes: 2,
        };
        assert_eq!(
            value_tokens(&v, &quote!(rt)).to_string(),
            "rt :: vector :: LongLong2"
        );
        let kw = CType::Struct("type".into());
        assert_eq!(value_tokens(&kw, &quote!(rt)).to_string(), "r#type");
        let tex = CType::Scalar(Scalar::TexObject);
        assert!(matches!(
            param_kind(&tex, &quote!(rt)),
            ParamKind::Object { ordered: false, .. }
        ));
        let handle = type_tokens(&passing(&tex).rust_type(), &quote!(rt));
        assert_eq!(handle.to_string(), "rt :: TextureHandle");
    }
}

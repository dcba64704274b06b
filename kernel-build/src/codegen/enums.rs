//! Rust enums for the C enumerations of a module: each value a variant (a value that repeats
//! an earlier one is an associated constant), stored as the C underlying integer, converted
//! from it with a check (`TryFrom`, the unknown value back as the error) and into it
//! (`From`). An enumeration defined in Rust and shared with CUDA is the user's own enum,
//! re-exported.

use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;

use crate::model::rust::{rust_ident, scalar_name};
use crate::model::{EnumDef, ModuleInfo};

/// Every enumeration of the module.
pub(crate) fn items(info: &ModuleInfo, rt: &TokenStream, derives: &[syn::Path]) -> TokenStream {
    let items = info.enums.iter().map(|e| item(e, rt, derives));
    quote!(#(#items)*)
}

fn item(def: &EnumDef, rt: &TokenStream, derives: &[syn::Path]) -> TokenStream {
    if let Some(path) = &def.rust_path {
        return super::structs::reexport("enum", &def.name, path);
    }
    let name = rust_ident(&def.name);
    let int = proc_macro2::Ident::new(scalar_name(def.underlying), Span::call_site());
    let mut seen: Vec<(i64, proc_macro2::Ident)> = Vec::new();
    let mut variants = Vec::new();
    let mut aliases = Vec::new();
    for (v, value) in &def.variants {
        let id = rust_ident(v);
        let lit = Literal::i64_unsuffixed(*value);
        let doc = format!(" `{}::{v}` = {value}.", def.name);
        match seen.iter().find(|(x, _)| x == value) {
            Some((_, first)) => aliases.push(quote! {
                #[doc = #doc]
                pub const #id: Self = Self::#first;
            }),
            None => {
                variants.push(quote!(#[doc = #doc] #id = #lit));
                seen.push((*value, id));
            }
        }
    }
    let arms = seen.iter().map(|(value, id)| {
        let lit = Literal::i64_unsuffixed(*value);
        quote!(#lit => ::core::result::Result::Ok(Self::#id),)
    });
    let mut doc = format!(
        " The CUDA enum `{}`, stored as `{}`",
        def.name,
        scalar_name(def.underlying)
    );
    if let Some(loc) = &def.loc {
        doc.push_str(&format!(", declared at `{loc}`"));
    }
    doc.push_str(
        ". A kernel parameter of this type takes the enum; a struct field holds its integer: \
         `Into` gives it, `TryFrom` takes it back with a check.",
    );
    let alias_impl = (!aliases.is_empty()).then(|| quote!(impl #name { #(#aliases)* }));
    let empty = seen.is_empty().then(|| {
        quote! {
            #[doc(hidden)]
            __Empty = 0,
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash #(, #derives)*)]
        #[repr(#int)]
        pub enum #name {
            #(#variants,)*
            #empty
        }

        #alias_impl

        impl ::core::convert::TryFrom<#int> for #name {
            /// The value no enumerator has.
            type Error = #int;

            fn try_from(value: #int) -> ::core::result::Result<Self, #int> {
                match value {
                    #(#arms)*
                    other => ::core::result::Result::Err(other),
                }
            }
        }

        impl ::core::convert::From<#name> for #int {
            fn from(value: #name) -> #int {
                value as #int
            }
        }

        // SAFETY: `#[repr(int)]` with the C enum's underlying type; the runtime only passes
        // values of the Rust enum, which are the C enum's values.
        unsafe impl #rt::__private::cudarc::driver::DeviceRepr for #name {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scalar;

    #[test]
    fn values_become_variants_and_repeats_constants() {
        let def = EnumDef {
            name: "Mode".into(),
            underlying: Scalar::U8,
            variants: vec![
                ("Fast".into(), 0),
                ("Exact".into(), 3),
                ("Default".into(), 0),
            ],
            rust_path: None,
            loc: None,
        };
        let serde: syn::Path = syn::parse_quote!(serde::Serialize);
        let out = item(&def, &quote!(rt), std::slice::from_ref(&serde)).to_string();
        assert!(out.contains("Hash , serde :: Serialize"), "{out}");
        assert!(out.contains("# [repr (u8)]"), "{out}");
        assert!(
            out.contains("Fast = 0") && out.contains("Exact = 3"),
            "{out}"
        );
        assert!(
            out.contains("pub const Default : Self = Self :: Fast"),
            "{out}"
        );
        assert!(
            out.contains("3 => :: core :: result :: Result :: Ok (Self :: Exact)"),
            "{out}"
        );
        let shared = EnumDef {
            rust_path: Some("crate::model::Mode".into()),
            ..def
        };
        let out = item(&shared, &quote!(rt), &[]).to_string();
        assert!(out.contains("pub use crate :: model :: Mode ;"), "{out}");
    }
}

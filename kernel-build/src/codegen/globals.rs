//! Typed accessors for `__constant__` and `__device__` globals.

use proc_macro2::TokenStream;
use quote::quote;

use super::types::value_tokens;
use crate::model::rust::rust_ident;
use crate::model::spelling::c_spelling;
use crate::model::{GlobalSpace, ModuleInfo};

/// One accessor method per global, in declaration order.
pub(crate) fn methods(info: &ModuleInfo, rt: &TokenStream) -> TokenStream {
    let methods = info.globals.iter().enumerate().map(|(index, g)| {
        let name = rust_ident(&g.name);
        let ty = value_tokens(&g.ty, rt);
        let space = match g.space {
            GlobalSpace::Constant => "__constant__",
            GlobalSpace::Device => "__device__",
        };
        let mut doc = format!(
            " The CUDA global `{space} {} {}` ({} bytes)",
            c_spelling(&g.ty),
            g.name,
            g.size
        );
        if let Some(loc) = &g.loc {
            doc.push_str(&format!(", declared at `{loc}`"));
        }
        doc.push('.');
        quote! {
            #[doc = #doc]
            ///
            /// # Errors
            ///
            /// When the driver cannot find the symbol or its size differs.
            pub fn #name(&self) -> ::core::result::Result<#rt::Global<#ty>, #rt::Error> {
                #rt::__private::global::<#ty>(&self.inner, #index)
            }
        }
    });
    quote!(#(#methods)*)
}

//! The module `cuda_module!` emits beside its errors when the module can be neither built
//! nor read: the generated module's whole shape (`load`, `library`, `Module` with its stream
//! methods, `METADATA`) over an empty model, with one method per declared kernel
//! ([`CodegenOptions::unbuilt`](super::CodegenOptions::unbuilt)) that accepts any
//! arguments, so that a failed build shows its own errors and no secondary ones at every
//! call site.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::built::BuiltModule;

/// A kernel the macro declares (`fn name(...);`, `safe fn` in an `unsafe extern` block).
// Not `Debug`: syn's types are not, without its `extra-traits` feature.
#[derive(Clone)]
pub struct Declared {
    /// The Rust signature as written.
    pub sig: syn::Signature,
    /// Vouched for: the method is safe.
    pub safe: bool,
}

/// The model of a module that failed to build: its name, and nothing else.
pub fn stand_in(name: &str) -> BuiltModule {
    BuiltModule {
        name: name.to_owned(),
        info: Default::default(),
        fatbin_path: None,
        targets: Vec::new(),
        toolkit_version: None,
        tracked_files: Vec::new(),
        warnings: Vec::new(),
        units: Vec::new(),
        runtime_source: None,
        constants: Vec::new(),
        editor_files: Vec::new(),
        tuned: Vec::new(),
    }
}

/// The methods of the kernels declared but not built, accepting anything.
pub(super) fn methods(declared: &[Declared], rt: &syn::Path) -> TokenStream {
    let stubs = declared.iter().map(|d| {
        let ident = &d.sig.ident;
        let args = (0..d.sig.inputs.len()).map(|i| {
            let arg = format_ident!("_arg{}", i);
            quote!(#arg: impl ::core::marker::Sized)
        });
        let unsafety = (!d.safe).then(|| quote!(unsafe));
        let generics = &d.sig.generics;
        quote! {
            /// Not available: the module failed to build.
            pub #unsafety fn #ident #generics(&self, _cfg: &#rt::Launch, #(#args),*)
                -> ::core::result::Result<(), #rt::Error> {
                ::core::unreachable!("the module failed to build")
            }
        }
    });
    quote!(#(#stubs)*)
}

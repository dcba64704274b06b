//! The expansion of `host_functions!`: read the module's metadata that `build.rs` wrote,
//! check each Rust declaration against the C one, and generate the bindings; on a mismatch,
//! the errors beside stand-ins with the declared signatures (so that call sites get no
//! secondary errors).

use std::path::PathBuf;

use proc_macro2::TokenStream;
use quote::quote;

use crate::builder::Metadata;
use crate::check::check_host_declarations;
use crate::codegen::host_bindings;
use crate::diagnostics::host as msg;

/// Expands `host_functions!(module { decls })` for the crate being compiled (its `OUT_DIR`).
pub fn expand_host_functions(
    module: &syn::Ident,
    decls: &[syn::ForeignItemFn],
    runtime: &syn::Path,
) -> TokenStream {
    let name = module.to_string();
    let out_dir = crate::env::cargo_var("OUT_DIR").map(PathBuf::from);
    if let Err(e) = super::include_kernels::built_here(module, out_dir.as_deref()) {
        return fallback(decls, e);
    }
    let path = out_dir
        .unwrap_or_default()
        .join(format!("{name}.kernels.json"));
    let shown = path.display().to_string();
    let metadata: Option<Metadata> = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let Some(metadata) = metadata else {
        let e = msg::no_module(&name, &shown).to_syn_error(module.span());
        return fallback(decls, e);
    };
    if !metadata.host_code {
        let e = msg::no_host_code(&name).to_syn_error(module.span());
        return fallback(decls, e);
    }
    match check_host_declarations(&metadata.module.info, &name, decls) {
        Ok(bindings) => host_bindings(&name, &shown, &bindings, runtime),
        Err(e) => fallback(decls, e),
    }
}

/// The errors, and one function per declaration with its signature that is never called
/// (the crate does not compile).
fn fallback(decls: &[syn::ForeignItemFn], e: syn::Error) -> TokenStream {
    let errors = e.to_compile_error();
    let stand_ins = decls.iter().map(|d| {
        let (attrs, vis) = (&d.attrs, &d.vis);
        let mut sig = d.sig.clone();
        sig.unsafety = None;
        quote! {
            #(#attrs)*
            #[allow(unused_variables, clippy::too_many_arguments)]
            #vis unsafe #sig {
                ::core::unreachable!()
            }
        }
    });
    quote!(#errors #(#stand_ins)*)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_module_the_build_script_did_not_build_is_an_error() {
        let out = expand_host_functions(
            &syn::parse_quote!(nowhere),
            &[],
            &syn::parse_quote!(::cuda_kernel_runtime),
        );
        assert!(out.to_string().contains("compile_error"));
    }
}

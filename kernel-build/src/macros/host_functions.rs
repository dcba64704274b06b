//! The expansion of `host_functions!`: read the module's metadata that `build.rs` wrote,
//! check each Rust declaration against the C one, and generate the bindings; on a mismatch,
//! the errors beside stand-ins with the declared signatures (so that call sites get no
//! secondary errors).

use std::path::PathBuf;

use proc_macro2::TokenStream;
use quote::quote;
use syn::{LitStr, Token};

use crate::builder::Metadata;
use crate::check::check_host_declarations;
use crate::codegen::host_bindings;
use crate::diagnostics::host as msg;

/// Expands `host_functions!(module { [crate = "path";] decls })` (never panics; errors become
/// `compile_error!`).
pub fn expand(tokens: TokenStream) -> TokenStream {
    let input = match syn::parse2::<HostInput>(tokens) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let runtime = match super::runtime_path(input.runtime_path.as_ref(), input.module.span()) {
        Ok(path) => path,
        Err(e) => return e.to_compile_error(),
    };
    expand_host_functions(&input.module, &input.decls, &runtime)
}

/// `host_functions!(module { [crate = "path";] fn ...; ... })`.
struct HostInput {
    /// The module (as `Build::compile` named it).
    module: syn::Ident,
    /// `crate = "my_gpu::runtime";`: the path generated code names the runtime by.
    runtime_path: Option<LitStr>,
    /// The declarations.
    decls: Vec<syn::ForeignItemFn>,
}

impl syn::parse::Parse for HostInput {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let module: syn::Ident = input.parse()?;
        let body;
        syn::braced!(body in input);
        let mut runtime_path = None;
        if body.peek(Token![crate]) && body.peek2(Token![=]) {
            body.parse::<Token![crate]>()?;
            body.parse::<Token![=]>()?;
            runtime_path = Some(body.parse()?);
            body.parse::<Token![;]>()?;
        }
        let mut decls = Vec::new();
        while !body.is_empty() {
            decls.push(body.parse()?);
        }
        Ok(HostInput {
            module,
            runtime_path,
            decls,
        })
    }
}

/// Expands `host_functions!(module { decls })` for the crate being compiled (its `OUT_DIR`).
fn expand_host_functions(
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
    fn the_runtime_path_is_a_key() {
        let h: HostInput = syn::parse_quote! {
            hosted { crate = "my_gpu::runtime"; fn f(n: i32) -> i32; }
        };
        assert_eq!(h.runtime_path.unwrap().value(), "my_gpu::runtime");
        assert_eq!(h.decls.len(), 1);
    }

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

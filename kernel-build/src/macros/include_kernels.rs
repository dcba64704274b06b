//! The expansion of `include_kernels!(name)`: the module `build.rs` generated for `name`,
//! when this run of the build script built it (see `builder::modules`); otherwise an error
//! naming the modules it builds.

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;

use crate::builder::modules;
use crate::diagnostics::build as msg;

/// Expands `include_kernels!(name)` (never panics; errors become `compile_error!`).
pub fn expand(tokens: TokenStream) -> TokenStream {
    match syn::parse2::<syn::Ident>(tokens) {
        Ok(module) => expand_include_kernels(&module),
        Err(e) => e.to_compile_error(),
    }
}

/// Expands `include_kernels!(name)` for the crate being compiled (its `OUT_DIR`).
fn expand_include_kernels(module: &syn::Ident) -> TokenStream {
    let out_dir = crate::env::cargo_var("OUT_DIR").map(PathBuf::from);
    match built_here(module, out_dir.as_deref()) {
        Ok(()) => {
            let file = format!("/kernel-build/{module}.rs");
            quote!(::core::include!(::core::concat!(::core::env!("OUT_DIR"), #file));)
        }
        Err(e) => e.to_compile_error(),
    }
}

/// Whether this crate's build script built `module` in its last run; the error for the
/// macro otherwise (shared by `host_functions!`).
pub(crate) fn built_here(module: &syn::Ident, out_dir: Option<&Path>) -> syn::Result<()> {
    let name = module.to_string();
    let built = out_dir.map(modules::read).unwrap_or_default();
    if built.contains(&name) {
        return Ok(());
    }
    let leftover = out_dir.is_some_and(|d| d.join(format!("kernel-build/{name}.rs")).is_file());
    Err(msg::module_not_built(&name, &built, leftover).to_syn_error(module.span()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_modules_of_the_last_run_are_included() {
        let dir = tempfile::tempdir().unwrap();
        let gen_dir = dir.path().join("kernel-build");
        std::fs::create_dir_all(&gen_dir).unwrap();
        std::fs::write(gen_dir.join("modules.txt"), "signal\nhosted\n").unwrap();
        std::fs::write(gen_dir.join("old.rs"), "pub mod old {}").unwrap();
        assert!(built_here(&syn::parse_quote!(signal), Some(dir.path())).is_ok());
        let typo = built_here(&syn::parse_quote!(signl), Some(dir.path()))
            .unwrap_err()
            .to_string();
        assert!(typo.contains("no module `signl`"), "{typo}");
        let old = built_here(&syn::parse_quote!(old), Some(dir.path()))
            .unwrap_err()
            .to_compile_error()
            .to_string();
        assert!(old.contains("left from an earlier build"), "{old}");
        assert!(old.contains("it builds `signal`, `hosted`"), "{old}");
        assert!(built_here(&syn::parse_quote!(signal), None).is_err());
    }

    #[test]
    fn including_a_module_not_built_is_an_error() {
        let out = expand_include_kernels(&syn::parse_quote!(nowhere));
        assert!(out.to_string().contains("compile_error"));
    }
}

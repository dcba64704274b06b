//! The path by which generated code names the runtime crate, under whatever name the user's
//! crate gives it.
//!
//! Both doors ask here: the macros while they expand, the build script before it writes the
//! module `include_kernels!` includes. An explicit path (`crate = "my_gpu::runtime"` in a
//! macro, [`crate::Build::runtime_crate`] in `build.rs`) wins; it serves a crate that reaches
//! the runtime through a crate of its own re-exporting it. Otherwise the compiled crate's
//! manifest (`CARGO_MANIFEST_DIR/Cargo.toml`, and the workspace's for inherited
//! dependencies) says under which name `cuda-kernel-runtime` is a dependency, renamed
//! (`rt = { package = "cuda-kernel-runtime", ... }`) or not.

use proc_macro_crate::{FoundCrate, crate_name};

use crate::diagnostics::options as msg;

/// The runtime's package name.
pub const PACKAGE: &str = "cuda-kernel-runtime";

/// The path generated code names the runtime by: `explicit` when given, else the name the
/// compiled crate's manifest gives `cuda-kernel-runtime`, else `::cuda_kernel_runtime` when
/// there is no manifest to read (outside Cargo).
///
/// An error (from the catalog) when `explicit` is not a path, or when the manifest lists no
/// `cuda-kernel-runtime`: the generated code would not resolve, and the message says how to
/// name a crate that re-exports it.
pub fn runtime_path(explicit: Option<&str>) -> Result<syn::Path, String> {
    match explicit {
        Some(text) => explicit_path(text),
        None => from_manifest(),
    }
}

/// `text` as a path, or the catalog's message saying it is not one.
pub fn explicit_path(text: &str) -> Result<syn::Path, String> {
    syn::parse_str::<syn::Path>(text.trim()).map_err(|_| msg::bad_runtime_path(text))
}

/// The name the compiled crate's manifest gives `cuda-kernel-runtime`, as a path; the
/// default path when there is no manifest to read; an error when the manifest lists no
/// runtime.
pub fn from_manifest() -> Result<syn::Path, String> {
    match crate_name(PACKAGE) {
        Ok(FoundCrate::Itself) => Ok(default_path()),
        Ok(FoundCrate::Name(name)) => {
            let ident = syn::Ident::new(&name, proc_macro2::Span::call_site());
            Ok(syn::parse_quote!(::#ident))
        }
        Err(proc_macro_crate::Error::CrateNotFound { path, .. }) => {
            Err(msg::runtime_not_a_dependency(&path))
        }
        // No manifest to read (a build outside Cargo): the runtime's own name.
        Err(_) => Ok(default_path()),
    }
}

/// `::cuda_kernel_runtime`.
pub(crate) fn default_path() -> syn::Path {
    syn::parse_quote!(::cuda_kernel_runtime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_path_wins_and_must_be_a_path() {
        let p = runtime_path(Some(" ::facade::cuda ")).unwrap();
        assert_eq!(quote::quote!(#p).to_string(), ":: facade :: cuda");
        let e = runtime_path(Some("facade::")).unwrap_err();
        assert!(e.contains("`facade::`"), "{e}");
    }

    #[test]
    fn this_crate_lists_no_runtime_and_says_how_to_name_one() {
        // cuda-kernel-build's own manifest has no `cuda-kernel-runtime` dependency.
        let e = runtime_path(None).unwrap_err();
        assert!(e.contains("cuda-kernel-runtime"), "{e}");
        assert!(e.contains("crate = "), "{e}");
    }

    #[test]
    fn an_explicit_runtime_path_is_parsed_or_rejected() {
        let p = runtime_path(Some("my_gpu::runtime")).unwrap();
        assert_eq!(quote::quote!(#p).to_string(), "my_gpu :: runtime");
        assert!(runtime_path(Some("not a path")).is_err());
    }

    #[test]
    fn explicit_paths_must_be_rust_paths() {
        assert!(explicit_path("::my_gpu::rt").is_ok());
        assert!(explicit_path("my gpu").is_err());
    }

    #[test]
    fn this_crate_manifest_names_no_runtime() {
        // This crate's own manifest lists no `cuda-kernel-runtime`.
        assert!(from_manifest().is_err());
    }
}

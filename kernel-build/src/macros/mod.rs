//! The macros' backend: every macro of the framework expands here, from the tokens the
//! proc-macro crate (`cuda-kernel-macros`) hands over to the tokens it returns; that crate
//! holds the macros' documentation and one call each. `cuda_module!` builds its inline
//! source through the pipeline; `include_kernels!` and `host_functions!` read what a build
//! script wrote in `OUT_DIR`; `elementwise!`, `reduction!` and `scan!` write their CUDA with
//! `cuda-kernel-generate` and build it as `cuda_module!` does. No expansion panics: every
//! error becomes a `compile_error!` at the span it concerns. `#[derive(CudaType)]` reads its
//! item as the headers of shared types do (`shared_types`).

mod cuda_module;
mod derive;
mod generators;
mod host_functions;
mod include_kernels;

use proc_macro2::{Span, TokenStream};

use generators::GeneratorKind;

pub use cuda_module::expand as cuda_module;
pub use cuda_module::expand_in as cuda_module_in;
pub use derive::expand as derive_cuda_type;
pub use host_functions::expand as host_functions;
pub use include_kernels::expand as include_kernels;

/// Expands `elementwise!`.
pub fn elementwise(tokens: TokenStream) -> TokenStream {
    generators::expand(GeneratorKind::Elementwise, tokens)
}

/// Expands `reduction!`.
pub fn reduction(tokens: TokenStream) -> TokenStream {
    generators::expand(GeneratorKind::Reduction, tokens)
}

/// Expands `scan!`.
pub fn scan(tokens: TokenStream) -> TokenStream {
    generators::expand(GeneratorKind::Scan, tokens)
}

/// The path a macro's expansion names the runtime by: the `crate = "..."` key's when given,
/// else the one the compiled crate's manifest names; where neither works, an error at the key
/// (or at the module's name, `name`).
fn runtime_path(key: Option<&syn::LitStr>, name: Span) -> syn::Result<syn::Path> {
    let explicit = key.map(syn::LitStr::value);
    crate::runtime_crate::runtime_path(explicit.as_deref())
        .map_err(|message| syn::Error::new(key.map_or(name, syn::LitStr::span), message))
}

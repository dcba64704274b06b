//! Rust code generation from a verified module (cannot fail).
//!
//! [`generate_parts`] turns a built module into one Rust `mod` item:
//!
//! ```text
//! /// (user docs)
//! pub mod vecmath {
//!     const _: Option<&str> = option_env!("NVCC");          // env vars rustc must track
//!     const _: &[u8] = include_bytes!("/abs/kernels/v.cu");  // files rustc must track
//!     static IMAGE: &Aligned<[u8]> = &Aligned(*include_bytes!("/abs/cache/v.fatbin"));
//!     pub static METADATA: ModuleSpec = ...;                 // kernels, params, archs, toolkit
//!     pub const REGISTERS: &[(&str, &str, u32)] = ...;       // (kernel, target, registers)
//!     pub fn load(gpu: &Gpu) -> Result<Module, Error>;
//!     pub struct Module { .. }                               // Clone; with_stream()
//!     impl Module { pub unsafe fn saxpy(&self, cfg: &LaunchConfig, a: f32,
//!                       x: impl ConstPtr<f32>, y: impl MutPtr<f32>, n: i32) -> Result<(), Error>; }
//!     #[repr(C)] pub struct P { .. }                          // C structs passed by value
//! }
//! ```
//!
//! Generated code names the runtime crate through [`CodegenOptions::runtime`]
//! (`::kernel_runtime` by default): its public types (`Gpu`, `Error`,
//! `LaunchConfig`, `Global`, `RawDevicePtr`, `vector::*`) by their public paths,
//! everything else only through its doc-hidden `__private` module. Every check
//! happens before this phase, so nothing here returns an error.

mod arg_bounds;
mod docs;
mod globals;
mod metadata;
mod names;
mod shell;
mod structs;
mod stubs;
mod templates;
mod types;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;

pub use names::{kernel_rust_name, param_ident, rust_ident};
pub use types::c_spelling;

use crate::model::ModuleInfo;

/// Choices made by the caller (the macro or the build script) about the generated module.
///
/// ```
/// let opts = kernel_build::__private::codegen::CodegenOptions::default();
/// assert!(opts.safe_kernels.is_empty());
/// assert_eq!(opts.runtime.segments.len(), 1); // ::kernel_runtime
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CodegenOptions {
    /// Visibility of the module (`pub`, `pub(crate)`, nothing).
    pub vis: syn::Visibility,
    /// Attributes put on the module, doc comments included.
    pub attrs: Vec<syn::Attribute>,
    /// Rust names of kernels the user vouched for: their stubs are safe `fn`s.
    pub safe_kernels: BTreeSet<String>,
    /// Emit `include_bytes!` of every tracked file so that rustc rebuilds on edits
    /// (needed in a macro; a build script tells Cargo instead).
    pub track_files: bool,
    /// Environment variables to record with `option_env!` so that rustc rebuilds on changes.
    pub tracked_env: Vec<String>,
    /// Path of the runtime crate (`::kernel_runtime`); internals are reached
    /// through its `__private` module.
    pub runtime: syn::Path,
}

impl Default for CodegenOptions {
    fn default() -> Self {
        CodegenOptions {
            vis: syn::parse_quote!(pub),
            attrs: Vec::new(),
            safe_kernels: BTreeSet::new(),
            track_files: false,
            tracked_env: Vec::new(),
            runtime: syn::parse_quote!(::kernel_runtime),
        }
    }
}

/// What codegen needs to know about a built module.
///
/// ```
/// let m = kernel_build::__private::codegen::ModuleParts {
///     name: "vecmath".into(), info: Default::default(), fatbin_path: None,
///     targets: vec!["sm_90".into()], toolkit_version: None, tracked_files: vec![],
///     units: vec![], runtime_source: None,
/// };
/// assert!(m.fatbin_path.is_none());
/// ```
#[derive(Clone, Debug)]
pub struct ModuleParts {
    /// Module name (a Rust identifier).
    pub name: String,
    /// The verified declarations.
    pub info: ModuleInfo,
    /// The fatbin to embed; `None` when built without device code.
    pub fatbin_path: Option<PathBuf>,
    /// Compiled targets (`sm_90`, `compute_120`).
    pub targets: Vec<String>,
    /// nvcc's version, when nvcc ran (or the cache entry says which did).
    pub toolkit_version: Option<String>,
    /// The source file and every user header it includes.
    pub tracked_files: Vec<PathBuf>,
    /// The files of a module of several, with where each one's image lies when they are
    /// not device-linked (see [`crate::pipeline::Unit`]).
    pub units: Vec<crate::pipeline::Unit>,
    /// The source the binary carries to compile at run time (see
    /// [`crate::pipeline::RuntimeCompile`]).
    pub runtime_source: Option<crate::pipeline::RuntimeSource>,
}

/// Generates the Rust module for `parts`.
///
/// ```
/// use kernel_build::__private::codegen::{generate_parts, CodegenOptions, ModuleParts};
/// let parts = ModuleParts { name: "empty".into(), info: Default::default(), fatbin_path: None,
///     targets: vec![], toolkit_version: None, tracked_files: vec![], units: vec![],
///     runtime_source: None };
/// let tokens = generate_parts(&parts, &CodegenOptions::default());
/// assert!(tokens.to_string().contains("mod empty"));
/// ```
pub fn generate_parts(parts: &ModuleParts, opts: &CodegenOptions) -> TokenStream {
    shell::module(parts, opts)
}

/// Tokens of `path` as a string literal for `include_bytes!`.
pub(crate) fn path_literal(path: &Path) -> syn::LitStr {
    syn::LitStr::new(&path.to_string_lossy(), proc_macro2::Span::call_site())
}

#[cfg(test)]
mod tests;

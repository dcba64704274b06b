//! Rust code generation from a verified module (cannot fail).
//!
//! [`generate`] turns a built module into one Rust `mod` item:
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
//!     impl Module { pub unsafe fn saxpy(&self, cfg: &Launch, a: f32,
//!                       x: impl ConstPtr<f32>, y: impl MutPtr<f32>, n: i32) -> Result<(), Error>; }
//!     #[repr(C)] pub struct P { .. }                          // C structs passed by value
//! }
//! ```
//!
//! Generated code names the runtime crate through [`CodegenOptions::runtime`]
//! (`::cuda_kernel_runtime` by default): its public types (`Gpu`, `Error`,
//! `Launch`, `Global`, `RawDevicePtr`, `vector::*`) by their public paths,
//! everything else only through its doc-hidden `__private` module. Every check
//! happens before this phase, so nothing here returns an error.

mod arg_bounds;
mod docs;
mod enums;
mod globals;
mod host;
mod metadata;
mod shell;
mod structs;
mod stubs;
mod takes;
mod tuned;
mod types;

mod fallback;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;

pub use fallback::{Declared, stand_in};
#[cfg(feature = "build")]
pub use host::error_name_functions;
pub use host::host_bindings;
pub(crate) use shell::{module_with_items, runtime_tokens};

use crate::model::ModuleInfo;
use crate::model::built::BuiltModule;
use crate::model::request::ModuleRequest;

/// Choices made by the caller (the macro or the build script) about the generated module.
// Not `Debug`: syn's types are not, without its `extra-traits` feature.
#[derive(Clone)]
#[non_exhaustive]
pub struct CodegenOptions {
    /// Visibility of the module (`pub`, `pub(crate)`, nothing).
    pub vis: syn::Visibility,
    /// Attributes put on the module, doc comments included.
    pub attrs: Vec<syn::Attribute>,
    /// Rust names of kernels the user vouched for: their stubs are safe `fn`s.
    pub safe_kernels: BTreeSet<String>,
    /// Stubs only for these kernels (Rust names); `None`: every kernel.
    pub kernels: Option<BTreeSet<String>>,
    /// Inside a macro: the variables the build reads (every one of the build's
    /// environment table), each emitted as `option_env!`, and every tracked file as
    /// `include_bytes!`, so that rustc re-expands the macro when one changes. `None`: a
    /// build script, which tells Cargo instead.
    pub track_inputs: Option<Vec<&'static str>>,
    /// Inside a macro: the build's warnings (nvcc's, kernels on some targets only, kernels
    /// without a typed stub) become compiler warnings at the macro, which cannot print them
    /// otherwise on stable Rust. A build script prints them as `cargo:warning=` instead.
    pub warn_in_code: bool,
    /// Path of the runtime crate (`::cuda_kernel_runtime`); internals are reached
    /// through its `__private` module.
    pub runtime: syn::Path,
    /// The kernels' stubs are `#[doc(hidden)]`: the module's face is something else (the
    /// launchers of generated kernels).
    pub hidden_stubs: bool,
    /// The fatbin lies in the crate's `OUT_DIR` (a build script's module): it is embedded as
    /// `concat!(env!("OUT_DIR"), "/<file>")`, so the generated text names no path of the
    /// build machine.
    pub image_in_out_dir: bool,
    /// The crate's folder: source locations in the docs, and tracked files, are written
    /// relative to it (a file outside it by its name alone), never as absolute paths.
    pub source_root: Option<PathBuf>,
    /// More derives for the structs and enums declared in CUDA (`serde::Serialize`), as the
    /// request asks.
    pub derives: Vec<syn::Path>,
    /// Kernels declared but not built (a module that failed to build, over the model of
    /// [`stand_in`]): each a method that accepts any arguments.
    pub unbuilt: Vec<Declared>,
}

impl Default for CodegenOptions {
    fn default() -> Self {
        CodegenOptions {
            vis: syn::parse_quote!(pub),
            attrs: Vec::new(),
            safe_kernels: BTreeSet::new(),
            kernels: None,
            track_inputs: None,
            warn_in_code: false,
            runtime: syn::parse_quote!(::cuda_kernel_runtime),
            hidden_stubs: false,
            image_in_out_dir: false,
            source_root: None,
            derives: Vec::new(),
            unbuilt: Vec::new(),
        }
    }
}

impl CodegenOptions {
    /// The options a request states about the generated code (safe kernels, the kernels
    /// that get stubs), the rest as by default.
    pub fn for_request(req: &ModuleRequest) -> CodegenOptions {
        CodegenOptions {
            safe_kernels: req.safe_kernels.iter().cloned().collect(),
            kernels: req.kernels.as_ref().map(|k| k.iter().cloned().collect()),
            source_root: Some(req.base_dir.clone()),
            derives: req
                .derives
                .iter()
                .filter_map(|d| syn::parse_str(d).ok())
                .collect(),
            ..CodegenOptions::default()
        }
    }
}

/// Generates the Rust module of a built module.
pub fn generate(module: &BuiltModule, opts: &CodegenOptions) -> TokenStream {
    let unbuilt = fallback::methods(&opts.unbuilt, &opts.runtime);
    if opts.kernels.is_none() && opts.source_root.is_none() {
        return shell::module_with(module, opts, unbuilt);
    }
    let mut selected = module.clone();
    if let Some(wanted) = &opts.kernels {
        // A tuned kernel's variants stay: its entry point launches them.
        let variants: Vec<&String> = module
            .tuned
            .iter()
            .flat_map(|t| t.variants.iter().filter_map(|v| v.kernel.as_ref()))
            .collect();
        selected.info.kernels.retain(|k| {
            wanted.contains(&crate::model::rust::kernel_rust_name(k)) || variants.contains(&&k.name)
        });
    }
    if let Some(root) = &opts.source_root {
        locations_under(&mut selected.info, root);
    }
    shell::module_with(&selected, opts, unbuilt)
}

/// Every source location of `info` written relative to `root`; a file outside it by its
/// name alone.
fn locations_under(info: &mut ModuleInfo, root: &Path) {
    info.for_each_location(|loc| loc.file = relative_name(Path::new(&loc.file), root));
}

/// `path` as shown in generated text: relative to `root` when under it, a relative path
/// as it is, any other absolute path by its file name.
pub fn relative_name(path: &Path, root: &Path) -> String {
    if let Ok(rel) = path.strip_prefix(root) {
        return rel.to_string_lossy().into_owned();
    }
    if path.is_relative() {
        return path.to_string_lossy().into_owned();
    }
    path.file_name()
        .map_or_else(|| path.to_string_lossy(), |n| n.to_string_lossy())
        .into_owned()
}

/// Tokens of `path` as a string literal for `include_bytes!`.
pub(crate) fn path_literal(path: &Path) -> syn::LitStr {
    syn::LitStr::new(&path.to_string_lossy(), proc_macro2::Span::call_site())
}

#[cfg(test)]
mod tests;

//! What a module's build is asked to do: its source, targets and options, as the build
//! script's `Build` and the macros fill them.

use super::options::{LinkMode, RuntimeCompile};
use std::path::PathBuf;

/// Where a module's CUDA source comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceInput {
    /// Source text (the `cuda_module!` string literal).
    Inline {
        /// The CUDA C text.
        text: String,
    },
    /// A `.cu` file; relative paths resolve against [`ModuleRequest::base_dir`].
    File {
        /// The file.
        path: PathBuf,
    },
    /// Several `.cu` files, each compiled as its own translation unit; their kernels form
    /// one module (see [`ModuleRequest::link`] for calls between files).
    Files {
        /// The files, in order.
        paths: Vec<PathBuf>,
    },
}

/// One module to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleRequest {
    /// Module name (used in messages, file names and the generated Rust module).
    pub name: String,
    /// The CUDA source.
    pub source: SourceInput,
    /// Targets (`sm_90`, `compute_120`); `None`: `KERNEL_BUILD_ARCHS`, else the default list.
    pub archs: Option<Vec<String>>,
    /// `-I` directories (relative ones resolve against `base_dir`).
    pub includes: Vec<PathBuf>,
    /// `-D` definitions.
    pub defines: Vec<(String, Option<String>)>,
    /// Extra nvcc flags.
    pub flags: Vec<String>,
    /// The crate root: relative paths resolve against it; inline sources include from it.
    pub base_dir: PathBuf,
    /// More folders whose files count as the user's (tracked, parsed), besides the
    /// source's own folder and the include directories.
    pub user_dirs: Vec<PathBuf>,
    /// Every target's image must hold every kernel: a kernel compiled for some targets
    /// only (declared inside `#if __CUDA_ARCH__ ...`) is an error instead of a warning.
    pub require_every_target: bool,
    /// How several files become one module's device code: each a whole program
    /// (default), device-linked (`rdc`), or link-time optimised (`lto`).
    pub link: LinkMode,
    /// Whether the module is compiled at run time by NVRTC, only or as a fallback.
    pub runtime: RuntimeCompile,
    /// Rust names of kernels the user vouched for: their stubs are safe `fn`s.
    pub safe_kernels: Vec<String>,
    /// Generate stubs for these kernels only (Rust names); `None`: every kernel.
    pub kernels: Option<Vec<String>>,
    /// Integer constants of the CUDA code to export as Rust `const`s: name and Rust type.
    pub constants: Vec<(String, String)>,
}

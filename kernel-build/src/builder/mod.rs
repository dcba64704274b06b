//! [`Build`]: the `build.rs` entry point, in the style of the `cc` crate.
//!
//! ```text
//! $OUT_DIR/
//! ├── <name>.fatbin              the compiled module (SASS per target + PTX)
//! ├── <name>.kernels.json        machine-readable metadata (see `Metadata`)
//! └── kernel-build/
//!     ├── <name>.rs              the generated Rust module (`include_kernels!(<name>)`)
//!     └── modules.txt            the modules this run of build.rs built (see `modules`)
//! ```
//!
//! Several files form one module: each is its own translation unit, compiled at the same
//! time as the others (within Cargo's `-j`) and cached on its own; see [`Build::link`]
//! for kernels that call into other files.
//!
//! `Build` holds the same request the `cuda_module!` macro fills
//! (`pipeline::ModuleRequest`): each setter here and each key there goes through the same
//! validating method, so both doors accept and refuse the same options with the same words.
//!
//! Only build scripts use `Build`: it, the host-code builder (`cc`) and the writing of the
//! generated files are compiled with the `build` feature (on by default, off in the macro
//! crate's build). [`Metadata`] and the list of built modules, which the macros read, are
//! always compiled.

#[cfg(feature = "build")]
mod compile;
#[cfg(feature = "build")]
mod host;
pub(crate) mod modules;
#[cfg(feature = "build")]
mod options;
#[cfg(feature = "build")]
mod outputs;
#[cfg(feature = "build")]
mod tune;

#[cfg(feature = "build")]
pub use outputs::script_module;
#[cfg(feature = "build")]
pub use tune::Tune;

use crate::pipeline::BuiltModule;
#[cfg(feature = "build")]
use crate::pipeline::{ModuleRequest, SourceInput};
use serde::{Deserialize, Serialize};
#[cfg(feature = "build")]
use std::path::PathBuf;

/// Compiles CUDA C files into a verified fatbin and typed Rust bindings, from `build.rs`.
///
/// ```no_run
/// // build.rs
/// fn main() {
///     cuda_kernel_build::Build::new()
///         .file("kernels/vecmath.cu")
///         .include("kernels/include")
///         .define("BLOCK", "256")
///         .arch("sm_80")
///         .arch("sm_90")
///         .arch("compute_90")
///         .compile("vecmath");
/// }
/// ```
#[cfg(feature = "build")]
#[derive(Clone, Debug)]
pub struct Build {
    /// The `.cu` files; they become the request's source when the build runs.
    files: Vec<PathBuf>,
    /// The options shared with the macro.
    req: ModuleRequest,
    /// Problems found by setters, reported by `try_compile` (setters cannot fail, as in cc).
    problems: Vec<String>,
    nvcc: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    cache_dir: Option<PathBuf>,
    cargo_metadata: bool,
    warnings: bool,
    jobs: Option<usize>,
    nvcc_wrapper: Option<PathBuf>,
    /// Also compile the files' host code into a static library linked into the crate.
    host_code: bool,
    /// The path the generated module names the runtime by (`None`: from the manifest).
    runtime_crate: Option<String>,
}

/// What [`Build::try_compile`] produced.
///
/// ```no_run
/// let out = cuda_kernel_build::Build::new().file("k.cu").try_compile("k")?;
/// println!("fatbin at {}", out.fatbin.display());
/// # Ok::<(), cuda_kernel_build::Error>(())
/// ```
#[cfg(feature = "build")]
#[derive(Clone, Debug)]
pub struct Output {
    /// `$OUT_DIR/<name>.fatbin`.
    pub fatbin: PathBuf,
    /// `$OUT_DIR/<name>.kernels.json`.
    pub metadata: PathBuf,
    /// `$OUT_DIR/kernel-build/<name>.rs`.
    pub rust: PathBuf,
    /// The verified module.
    pub module: BuiltModule,
}

/// The contents of `<name>.kernels.json`.
///
/// ```
/// let m: cuda_kernel_build::Metadata = serde_json::from_str(
///     r#"{"format":1,"module":{"name":"m","info":{"kernels":[],"structs":[],"globals":[],
///        "preprocessed":true,"notes":[]},"fatbin_path":null,"targets":[],
///        "toolkit_version":null,"tracked_files":[],"warnings":[]}}"#).unwrap();
/// assert_eq!(m.format, 1);
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Metadata {
    /// Version of this layout.
    pub format: u32,
    /// The module: kernels with parameters and per-image registers, structs, globals,
    /// targets, toolkit version, tracked files, warnings.
    pub module: BuiltModule,
    /// True when the module's host code was compiled into the crate (`Build::host_code`):
    /// `host_functions!` bindings of it link.
    #[serde(default)]
    pub host_code: bool,
}

#[cfg(feature = "build")]
impl Default for Build {
    fn default() -> Self {
        Build::new()
    }
}

#[cfg(feature = "build")]
impl Build {
    /// A build with no files, the default targets and Cargo output on.
    ///
    /// ```
    /// let b = cuda_kernel_build::Build::new();
    /// ```
    pub fn new() -> Build {
        Build {
            files: Vec::new(),
            req: ModuleRequest::new("", SourceInput::Files { paths: Vec::new() }),
            problems: Vec::new(),
            nvcc: None,
            out_dir: None,
            cache_dir: None,
            cargo_metadata: true,
            warnings: true,
            jobs: None,
            nvcc_wrapper: None,
            host_code: false,
            runtime_crate: None,
        }
    }
}

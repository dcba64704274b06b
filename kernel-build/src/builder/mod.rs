//! [`Build`]: the `build.rs` entry point, in the style of the `cc` crate.
//!
//! ```text
//! $OUT_DIR/
//! ├── <name>.fatbin              the compiled module (SASS per target + PTX)
//! ├── <name>.kernels.json        machine-readable metadata (see `Metadata`)
//! └── kernel-build/
//!     └── <name>.rs              the generated Rust module (`include_kernels!(<name>)`)
//! ```
//!
//! Several files form one module: each is its own translation unit, compiled at the same
//! time as the others (within Cargo's `-j`) and cached on its own; see [`Build::rdc`]
//! and [`Build::lto`] for kernels that call into other files.

mod compile;
mod options;
mod outputs;

use crate::pipeline::BuiltModule;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Compiles CUDA C files into a verified fatbin and typed Rust bindings, from `build.rs`.
///
/// ```no_run
/// // build.rs
/// fn main() {
///     kernel_build::Build::new()
///         .file("kernels/vecmath.cu")
///         .include("kernels/include")
///         .define("BLOCK", "256")
///         .arch("sm_80")
///         .arch("sm_90")
///         .arch("compute_90")
///         .compile("vecmath");
/// }
/// ```
#[derive(Clone, Debug)]
pub struct Build {
    files: Vec<PathBuf>,
    archs: Vec<String>,
    includes: Vec<PathBuf>,
    defines: Vec<(String, Option<String>)>,
    flags: Vec<String>,
    nvcc: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    cache_dir: Option<PathBuf>,
    cargo_metadata: bool,
    warnings: bool,
    safe_kernels: Vec<String>,
    require_every_target: bool,
    link: crate::link::LinkMode,
    jobs: Option<usize>,
    runtime: crate::pipeline::RuntimeCompile,
    nvcc_wrapper: Option<PathBuf>,
}

/// What [`Build::try_compile`] produced.
///
/// ```no_run
/// let out = kernel_build::Build::new().file("k.cu").try_compile("k")?;
/// println!("fatbin at {}", out.fatbin.display());
/// # Ok::<(), kernel_build::Error>(())
/// ```
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
/// let m: kernel_build::Metadata = serde_json::from_str(
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
}

impl Default for Build {
    fn default() -> Self {
        Build::new()
    }
}

impl Build {
    /// A build with no files, the default targets and Cargo output on.
    ///
    /// ```
    /// let b = kernel_build::Build::new();
    /// ```
    pub fn new() -> Build {
        Build {
            files: Vec::new(),
            archs: Vec::new(),
            includes: Vec::new(),
            defines: Vec::new(),
            flags: Vec::new(),
            nvcc: None,
            out_dir: None,
            cache_dir: None,
            cargo_metadata: true,
            warnings: true,
            safe_kernels: Vec::new(),
            require_every_target: false,
            link: crate::link::LinkMode::Whole,
            jobs: None,
            runtime: crate::pipeline::RuntimeCompile::Off,
            nvcc_wrapper: None,
        }
    }
}

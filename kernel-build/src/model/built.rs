//! What a module's build produces: the verified declarations, the fatbin, the files of a
//! module of several, the source compiled at run time and the exported constants.

use super::ModuleInfo;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A built, verified module.
///
/// ```
/// # fn f(built: cuda_kernel_build::BuiltModule) {
/// for k in &built.info.kernels {
///     println!("{} takes {} parameters", k.name, k.params.len());
/// }
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuiltModule {
    /// Module name.
    pub name: String,
    /// The declarations, verified against every compiled image.
    pub info: ModuleInfo,
    /// The fatbin; `None` when built without device code.
    pub fatbin_path: Option<PathBuf>,
    /// Targets in the fatbin (`sm_90`, `compute_120`).
    pub targets: Vec<String>,
    /// The nvcc release that compiled it.
    pub toolkit_version: Option<String>,
    /// The source file and every user header it includes (not system or toolkit headers).
    pub tracked_files: Vec<PathBuf>,
    /// nvcc's warnings, with file:line.
    pub warnings: Vec<String>,
    /// The translation units of a module built from several files, in order: which
    /// kernels and globals each holds and, when each is its own image, where that image
    /// lies in the fatbin. Empty for a module of one file.
    #[serde(default)]
    pub units: Vec<Unit>,
    /// The source the binary carries to compile at run time, when it does.
    #[serde(default)]
    pub runtime_source: Option<super::options::RuntimeSource>,
    /// The constants exported to Rust ([`Build::export_constant`](crate::Build::export_constant),
    /// the macro's `constants`).
    #[serde(default)]
    pub constants: Vec<ExportedConstant>,
    /// The files this build wrote for editors: the compilation database
    /// (`compile_commands.json`) and the folder of the shared types' headers, under
    /// `cuda-kernel-build/` in Cargo's target folder (or `KERNEL_BUILD_EDITOR_DIR`). Not
    /// cached: every build writes them anew.
    #[serde(skip)]
    pub editor_files: Vec<PathBuf>,
    /// The kernels tuned over declared variants (`tune` in `cuda_module!`, `Build::tune`),
    /// each with its variants and launch rules.
    #[serde(default)]
    pub tuned: Vec<super::TunedKernel>,
}

/// One file of a module built from several.
///
/// ```
/// let u = cuda_kernel_build::Unit { file: "a.cu".into(), image: Some((0, 4096)),
///     kernels: vec!["scale".into()], globals: vec![] };
/// assert_eq!(u.image.unwrap().1, 4096);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    /// The file as given.
    pub file: String,
    /// `(offset, length)` of this file's own fatbin inside the module's fatbin, when
    /// files are not device-linked (each is then loaded as a module of its own).
    pub image: Option<(u64, u64)>,
    /// Symbols of the kernels that come from this file.
    pub kernels: Vec<String>,
    /// Symbols of the globals that come from this file.
    pub globals: Vec<String>,
}

/// An integer constant of the CUDA code exported to Rust, as the compiler evaluated it
/// (`Build::export_constant`, the macro's `constants`).
///
/// ```
/// let c = cuda_kernel_build::ExportedConstant { name: "TILE".into(), rust_type: "u32".into(), value: 16 };
/// assert_eq!(c.value, 16);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedConstant {
    /// Its name in the CUDA code, and of the Rust `const`.
    pub name: String,
    /// The Rust integer type of the `const`.
    pub rust_type: String,
    /// Its value, checked to fit `rust_type`.
    pub value: i128,
}

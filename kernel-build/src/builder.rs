//! [`Build`]: the `build.rs` entry point, in the style of the `cc` crate.
//!
//! ```text
//! $OUT_DIR/
//! ├── <name>.fatbin              the compiled module (SASS per target + PTX)
//! ├── <name>.kernels.json        machine-readable metadata (see `Metadata`)
//! └── kernel-build/
//!     ├── <name>.rs              the generated Rust module (`include_kernels!(<name>)`)
//!     └── <name>.cu              only with several files: one unit that includes each
//! ```

use crate::codegen::{self, CodegenOptions, ModuleParts};
use crate::env::Reporting;
use crate::error::Error;
use crate::pipeline::{self, BuiltModule, Context, ModuleRequest, SourceInput};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
        }
    }

    /// Adds a `.cu` file (relative to the crate root). Several files form one module.
    ///
    /// ```
    /// kernel_build::Build::new().file("kernels/a.cu").file("kernels/b.cu");
    /// ```
    pub fn file(&mut self, path: impl AsRef<Path>) -> &mut Build {
        self.files.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds a target (`sm_90`, `sm_90a`, `compute_120`). Without any, `KERNEL_BUILD_ARCHS`
    /// or the default list (SASS for every major arch the toolkit supports + PTX for the
    /// newest) is used. The list given is exact: add a `compute_` target for PTX.
    ///
    /// ```
    /// kernel_build::Build::new().arch("sm_90").arch("compute_90");
    /// ```
    pub fn arch(&mut self, target: &str) -> &mut Build {
        self.archs.push(target.to_string());
        self
    }

    /// Adds an include directory (relative to the crate root).
    ///
    /// ```
    /// kernel_build::Build::new().include("kernels/include");
    /// ```
    pub fn include(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.includes.push(dir.as_ref().to_path_buf());
        self
    }

    /// Defines a preprocessor macro (`-DNAME` or `-DNAME=VALUE`).
    ///
    /// ```
    /// kernel_build::Build::new().define("BLOCK", "256").define("FAST_MATH", None);
    /// ```
    pub fn define<'a>(&mut self, name: &str, value: impl Into<Option<&'a str>>) -> &mut Build {
        self.defines
            .push((name.to_string(), value.into().map(String::from)));
        self
    }

    /// Adds an nvcc flag (`-O3`, `--use_fast_math`, `-lineinfo`).
    ///
    /// ```
    /// kernel_build::Build::new().flag("--use_fast_math");
    /// ```
    pub fn flag(&mut self, flag: &str) -> &mut Build {
        self.flags.push(flag.to_string());
        self
    }

    /// Uses this nvcc instead of searching for one.
    ///
    /// ```
    /// kernel_build::Build::new().nvcc("/usr/local/cuda-13.0/bin/nvcc");
    /// ```
    pub fn nvcc(&mut self, path: impl AsRef<Path>) -> &mut Build {
        self.nvcc = Some(path.as_ref().to_path_buf());
        self
    }

    /// Writes outputs here instead of `$OUT_DIR`.
    ///
    /// ```
    /// kernel_build::Build::new().out_dir("target/kernels");
    /// ```
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Uses this cache directory instead of the environment's.
    ///
    /// ```
    /// kernel_build::Build::new().cache_dir("/tmp/kernel-cache");
    /// ```
    pub fn cache_dir(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.cache_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Whether to print `cargo:` lines (on by default; off outside build scripts).
    ///
    /// ```
    /// kernel_build::Build::new().cargo_metadata(false);
    /// ```
    pub fn cargo_metadata(&mut self, on: bool) -> &mut Build {
        self.cargo_metadata = on;
        self
    }

    /// Whether to re-print nvcc's warnings as `cargo:warning=` (on by default).
    ///
    /// ```
    /// kernel_build::Build::new().warnings(false);
    /// ```
    pub fn warnings(&mut self, on: bool) -> &mut Build {
        self.warnings = on;
        self
    }

    /// Vouches that a kernel is safe to launch with any arguments its signature admits:
    /// its stub becomes a safe `fn` (see the safety model in the README).
    ///
    /// ```
    /// kernel_build::Build::new().safe_kernel("saxpy");
    /// ```
    pub fn safe_kernel(&mut self, rust_name: &str) -> &mut Build {
        self.safe_kernels.push(rust_name.to_string());
        self
    }

    /// Builds the module, or prints the error and exits with status 1 (for `build.rs`).
    ///
    /// ```no_run
    /// kernel_build::Build::new().file("kernels/vecmath.cu").compile("vecmath");
    /// ```
    pub fn compile(&self, name: &str) -> Output {
        match self.try_compile(name) {
            Ok(out) => out,
            Err(e) => {
                eprintln!("\n\nerror occurred in kernel-build: {e}\n\n");
                std::process::exit(1);
            }
        }
    }

    /// Builds the module: compiles, verifies, writes the fatbin, the metadata and the
    /// generated Rust, and tells Cargo what to watch.
    ///
    /// ```no_run
    /// match kernel_build::Build::new().file("k.cu").try_compile("k") {
    ///     Ok(out) => println!("{} kernels", out.module.info.kernels.len()),
    ///     Err(e) => eprintln!("{e}"),
    /// }
    /// ```
    pub fn try_compile(&self, name: &str) -> Result<Output, Error> {
        if !is_identifier(name) {
            return Err(Error::InvalidOption(format!(
                "module name `{name}` is not a Rust identifier (it names the generated module)"
            )));
        }
        let reporting = if self.cargo_metadata {
            Reporting::Cargo
        } else {
            Reporting::Silent
        };
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => crate::env::cargo_var("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    Error::InvalidOption(
                        "OUT_DIR is not set: run from build.rs or call `out_dir`".into(),
                    )
                })?,
        };
        let gen_dir = out_dir.join("kernel-build");
        mkdir(&gen_dir)?;
        let mut req = ModuleRequest::new(
            name,
            SourceInput::File {
                path: self.main_file(name, &gen_dir)?,
            },
        );
        req.archs = (!self.archs.is_empty()).then(|| self.archs.clone());
        req.includes = self.includes.clone();
        req.defines = self.defines.clone();
        req.flags = self.flags.clone();
        req.user_dirs = self
            .files
            .iter()
            .filter_map(|f| f.parent().map(Path::to_path_buf))
            .collect();
        let cx = Context {
            reporting,
            nvcc: self.nvcc.clone(),
            cache_dir: self.cache_dir.clone(),
            ..Context::default()
        };
        let mut module = pipeline::build_module(&req, &cx)?;
        // Generated files (the unit of several sources) are outputs, not inputs.
        module.tracked_files.retain(|f| !f.starts_with(&out_dir));

        let fatbin = out_dir.join(format!("{name}.fatbin"));
        if let Some(src) = &module.fatbin_path {
            std::fs::copy(src, &fatbin)
                .map_err(|e| Error::io("failed to copy the fatbin to", &fatbin, e))?;
        }
        let mut published = module.clone();
        published.fatbin_path = module.fatbin_path.as_ref().map(|_| fatbin.clone());
        let metadata = out_dir.join(format!("{name}.kernels.json"));
        let json = serde_json::to_vec_pretty(&Metadata {
            format: 1,
            module: published.clone(),
        })
        .map_err(std::io::Error::other)
        .map_err(|e| Error::io("failed to write", &metadata, e))?;
        write_if_changed(&metadata, &json)?;
        let rust = gen_dir.join(format!("{name}.rs"));
        write_if_changed(&rust, self.generate(&published).as_bytes())?;

        if self.cargo_metadata {
            for f in &module.tracked_files {
                println!("cargo:rerun-if-changed={}", f.display());
            }
            if self.warnings {
                for w in &module.warnings {
                    for line in w.lines() {
                        println!("cargo:warning={line}");
                    }
                }
            }
        }
        Ok(Output {
            fatbin,
            metadata,
            rust,
            module,
        })
    }

    /// The file nvcc compiles: the one file, or a unit including each of several.
    fn main_file(&self, name: &str, gen_dir: &Path) -> Result<PathBuf, Error> {
        match self.files.as_slice() {
            [] => Err(Error::InvalidOption(format!(
                "module `{name}` has no files: call `Build::file`"
            ))),
            [one] => Ok(one.clone()),
            many => {
                let base = ModuleRequest::new(
                    name,
                    SourceInput::Inline {
                        text: String::new(),
                    },
                )
                .base_dir;
                let mut unit =
                    String::from("// One translation unit for several files (generated).\n");
                for f in many {
                    let full = base.join(f);
                    if !full.is_file() {
                        let e = std::io::Error::from(std::io::ErrorKind::NotFound);
                        return Err(Error::io("failed to read the CUDA source", full, e));
                    }
                    unit.push_str(&format!("#include \"{}\"\n", full.display()));
                }
                let path = gen_dir.join(format!("{name}.cu"));
                write_if_changed(&path, unit.as_bytes())?;
                Ok(path)
            }
        }
    }

    fn generate(&self, module: &BuiltModule) -> String {
        let parts = ModuleParts {
            name: module.name.clone(),
            info: module.info.clone(),
            fatbin_path: module.fatbin_path.clone(),
            targets: module.targets.clone(),
            toolkit_version: module.toolkit_version.clone(),
            tracked_files: module.tracked_files.clone(),
        };
        let opts = CodegenOptions {
            safe_kernels: self.safe_kernels.iter().cloned().collect(),
            ..CodegenOptions::default()
        };
        let tokens = codegen::generate_parts(&parts, &opts);
        format!(
            "// Generated by kernel-build from the CUDA sources of `{}`. Do not edit.\n{tokens}\n",
            module.name
        )
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn mkdir(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("failed to create", dir, e))
}

/// Writes only when the contents differ, so that unchanged outputs keep their mtime.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    std::fs::write(path, bytes).map_err(|e| Error::io("failed to write", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_must_be_identifiers() {
        let dir = tempfile::tempdir().unwrap();
        let err = Build::new()
            .file("k.cu")
            .out_dir(dir.path())
            .try_compile("my-mod")
            .unwrap_err();
        assert!(err.to_string().contains("my-mod"), "{err}");
    }

    #[test]
    fn no_files_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = Build::new()
            .out_dir(dir.path())
            .cargo_metadata(false)
            .try_compile("m")
            .unwrap_err();
        assert!(err.to_string().contains("no files"), "{err}");
    }
}

//! Running a [`Build`]: checking the module name, building the module through the
//! pipeline, writing the outputs and telling Cargo what to watch.

use super::outputs::{mkdir, write_if_changed};
use super::{Build, Metadata, Output};
use crate::env::Reporting;
use crate::error::Error;
use crate::pipeline::{self, Context, ModuleRequest, SourceInput};
use std::path::{Path, PathBuf};

impl Build {
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
        let source = match self.files.as_slice() {
            [] => {
                return Err(Error::InvalidOption(format!(
                    "module `{name}` has no files: call `Build::file`"
                )));
            }
            [one] => SourceInput::File { path: one.clone() },
            many => SourceInput::Files {
                paths: many.to_vec(),
            },
        };
        let mut req = ModuleRequest::new(name, source);
        req.archs = (!self.archs.is_empty()).then(|| self.archs.clone());
        req.includes = self.includes.clone();
        req.defines = self.defines.clone();
        req.flags = self.flags.clone();
        req.require_every_target = self.require_every_target;
        req.link = self.link;
        req.runtime = self.runtime;
        req.user_dirs = self
            .files
            .iter()
            .filter_map(|f| f.parent().map(Path::to_path_buf))
            .collect();
        let cx = Context {
            reporting,
            nvcc: self.nvcc.clone(),
            cache_dir: self.cache_dir.clone(),
            jobs: self.jobs,
            nvcc_wrapper: self.nvcc_wrapper.clone(),
            ..Context::default()
        };
        let module = pipeline::build_module(&req, &cx)?;

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
}

/// True for a Rust identifier (ASCII letters, digits and `_`, not starting with a digit).
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
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

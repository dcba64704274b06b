//! Running a [`Build`]: checking the module name, building the module through the
//! pipeline, writing the outputs and telling Cargo what to watch.

use super::outputs::{Runtime, generate, mkdir, write_if_changed};
use super::{Build, Metadata, Output};
use crate::diagnostics::options;
use crate::env::Reporting;
use crate::error::Error;
use crate::pipeline::{self, Context, SourceInput};
use crate::runtime_crate;
use std::path::{Path, PathBuf};

impl Build {
    /// Builds the module, or prints the error and exits with status 1 (for `build.rs`).
    ///
    /// ```no_run
    /// cuda_kernel_build::Build::new().file("kernels/vecmath.cu").compile("vecmath");
    /// ```
    pub fn compile(&self, name: &str) -> Output {
        match self.run(name) {
            Ok(out) => {
                crate::env::announce();
                out
            }
            Err(e) => {
                // The variables read are not announced: the script runs again after a
                // failure anyway, and its output is then the error alone.
                let report = crate::diagnostics::build::report(&e);
                eprintln!("\n\nerror occurred in cuda-kernel-build: {report}\n\n");
                std::process::exit(1);
            }
        }
    }

    /// Builds the module: compiles, verifies, writes the fatbin, the metadata and the
    /// generated Rust, and tells Cargo what to watch.
    ///
    /// ```no_run
    /// match cuda_kernel_build::Build::new().file("k.cu").try_compile("k") {
    ///     Ok(out) => println!("{} kernels", out.module.info.kernels.len()),
    ///     Err(e) => eprintln!("{e}"),
    /// }
    /// ```
    pub fn try_compile(&self, name: &str) -> Result<Output, Error> {
        let result = self.run(name);
        // Announced either way: a script that goes on after an error must still be rerun
        // when a variable the build read changes.
        crate::env::announce();
        result
    }

    /// [`Build::try_compile`] without announcing the variables read.
    fn run(&self, name: &str) -> Result<Output, Error> {
        let mut req = self.req.clone();
        let mut problems = self.problems.clone();
        if let Err(problem) = req.set_name(name) {
            problems.insert(0, problem);
        }
        // The runtime's path: a written one must parse; one the manifest lacks is reported
        // where the module is included (a build that never includes it is not wrong).
        let runtime = match self.runtime_crate.as_deref() {
            Some(text) => match runtime_crate::explicit_path(text) {
                Ok(path) => Runtime::Found(path),
                Err(problem) => {
                    problems.push(problem);
                    Runtime::Found(runtime_crate::default_path())
                }
            },
            None => match runtime_crate::from_manifest() {
                Ok(path) => Runtime::Found(path),
                Err(message) => Runtime::Missing(message),
            },
        };
        if !problems.is_empty() {
            return Err(Error::InvalidOption(problems.join("\n")));
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
                .ok_or_else(|| Error::InvalidOption(options::no_out_dir()))?,
        };
        let gen_dir = out_dir.join("kernel-build");
        mkdir(&gen_dir)?;
        req.source = match self.files.as_slice() {
            [] => return Err(Error::InvalidOption(options::no_files(name))),
            [one] => SourceInput::File { path: one.clone() },
            many => SourceInput::Files {
                paths: many.to_vec(),
            },
        };
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
        if self.host_code && module.fatbin_path.is_some() {
            let toolkit =
                crate::toolkit::Toolkit::discover_with(&crate::toolkit::DiscoverOptions {
                    nvcc: self.nvcc.clone(),
                    reporting,
                    ..crate::toolkit::DiscoverOptions::default()
                })?;
            let cache = match &self.cache_dir {
                Some(dir) => Some(crate::cache::Cache::at(dir)),
                None => crate::cache::Cache::locate(reporting),
            };
            super::host::HostCode {
                nvcc: toolkit.nvcc(),
                library_includes: &toolkit.library_includes(),
                toolkit_version: module.toolkit_version.as_deref(),
                files: &self.files,
                tracked: &module.tracked_files,
                req: &req,
                targets: &module.targets,
                out_dir: &out_dir,
                name,
                cargo_metadata: self.cargo_metadata,
                cache: cache.as_ref(),
                jobs: self.jobs,
                reporting,
            }
            .compile()?;
        }

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
            host_code: self.host_code,
        })
        .map_err(std::io::Error::other)
        .map_err(|e| Error::io("failed to write", &metadata, e))?;
        write_if_changed(&metadata, &json)?;
        let rust = gen_dir.join(format!("{name}.rs"));
        write_if_changed(&rust, generate(&published, &req, &runtime).as_bytes())?;
        super::modules::record(&out_dir, name)?;

        if self.cargo_metadata {
            // A renamed runtime dependency changes the generated module.
            if self.runtime_crate.is_none()
                && let Some(dir) = crate::env::cargo_var("CARGO_MANIFEST_DIR")
            {
                let manifest = PathBuf::from(dir).join("Cargo.toml");
                println!("cargo:rerun-if-changed={}", manifest.display());
            }
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

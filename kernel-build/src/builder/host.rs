//! Host code in a module (`Build::host_code`): the host side of the module's `.cu` files —
//! host functions next to the kernels, launchers calling `kernel<<<...>>>`, CUB and Thrust
//! calls — compiled by nvcc through `cc` (its flags, target and archive conventions) into
//! `lib<name>_host.a`, linked into the crate with the static CUDA runtime and the C++ runtime,
//! so the binary still needs only the driver. The CUDA runtime uses the device's primary
//! context, the one `cuda_kernel_runtime::Gpu` opens: buffers and streams cross freely.
//!
//! Each file is compiled on its own, in the build's parallel queue (the jobserver's tokens),
//! into an object kept in the build cache under a key of everything that decides it: the
//! toolkit, the targets, includes, defines and flags, cc's view of the target and profile,
//! the file's text and the text of every header the module includes. A warm rebuild runs nvcc
//! zero times; editing one file recompiles that file only (a header, every file).

use std::path::{Path, PathBuf};

use crate::cache::{Cache, KeyHasher, hash_bytes};
use crate::env::Reporting;
use crate::error::Error;
use crate::jobs::Jobs;
use crate::pipeline::ModuleRequest;

/// What the host compile needs.
pub(crate) struct HostCode<'a> {
    pub nvcc: &'a Path,
    /// Header folders of libraries beside nvcc (CUTLASS), searched after the module's own.
    pub library_includes: &'a [PathBuf],
    pub toolkit_version: Option<&'a str>,
    pub files: &'a [PathBuf],
    /// Every file the module's compile read (sources and user headers).
    pub tracked: &'a [PathBuf],
    pub req: &'a ModuleRequest,
    /// The module's targets (`sm_90`, `compute_120`): the host objects embed the same code.
    pub targets: &'a [String],
    pub out_dir: &'a Path,
    pub name: &'a str,
    pub cargo_metadata: bool,
    /// Where objects are kept (`None`: `OUT_DIR` only).
    pub cache: Option<&'a Cache>,
    pub jobs: Option<usize>,
    pub reporting: Reporting,
}

/// What one host compile did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct HostReport {
    /// Files compiled by nvcc.
    pub compiled: usize,
    /// Files whose object was reused.
    pub reused: usize,
    /// The archive.
    pub library: PathBuf,
}

/// The variables the user may set that cc reads when it compiles and archives the objects:
/// a change reruns the build script (the key below holds their values too).
const CC_WATCHED: &[&str] = &[
    "CXX",
    "CXXFLAGS",
    "CFLAGS",
    "NVCC_PREPEND_FLAGS",
    "NVCC_APPEND_FLAGS",
    "NVCC_CCBIN",
    "AR",
    "ARFLAGS",
    "CRATE_CC_NO_DEFAULTS",
    "CXXSTDLIB",
];

/// The variables Cargo sets that cc reads and that change the objects it makes (target,
/// profile); with [`CC_WATCHED`], the part of the objects' key the environment gives.
const CC_VARS: &[&str] = &["TARGET", "HOST", "OPT_LEVEL", "DEBUG", "PROFILE"];

impl HostCode<'_> {
    /// Compiles (or reuses) every file's object and archives them; prints Cargo's link lines
    /// (under Cargo).
    pub(crate) fn compile(&self) -> Result<HostReport, Error> {
        let errors_file = self.error_names()?;
        let mut files: Vec<PathBuf> = self.files.to_vec();
        files.push(errors_file);
        let store = match self.cache {
            Some(c) => c.root().join("host"),
            None => self.out_dir.join("kernel-build").join("host-objects"),
        };
        std::fs::create_dir_all(&store).map_err(|e| Error::io("failed to create", &store, e))?;
        let common = self.common_key()?;
        let jobs = Jobs::new(self.jobs, self.reporting);
        let results = jobs.run(&files, |_| 1, |file, _| self.object(file, &common, &store));
        let mut objects = Vec::new();
        let mut report = HostReport::default();
        for r in results {
            let (object, compiled) = r?;
            if compiled {
                report.compiled += 1;
            } else {
                report.reused += 1;
            }
            objects.push(object);
        }
        // cc prints each variable it reads with its value when it tells Cargo anything (a
        // wall of `AR = None` lines above any later build error): it tells Cargo nothing,
        // and the link lines and the variables to watch are printed here.
        let b = self.cc();
        report.library = b
            .try_create_archive(&format!("{}_host", self.name), &objects)
            .map_err(|e| self.failed(&e))?;
        if self.cargo_metadata {
            if let Some(dir) = report.library.parent() {
                println!("cargo:rustc-link-search=native={}", dir.display());
            }
            println!("cargo:rustc-link-lib=static={}_host", self.name);
            // The toolkit's own library folders (the wheels keep `libcudart_static.a` in
            // `<root>/lib`, where cc does not look), and what the static runtime needs.
            for dir in crate::link::library_dirs(self.nvcc) {
                if dir.join("libcudart_static.a").is_file() {
                    println!("cargo:rustc-link-search=native={}", dir.display());
                }
            }
            println!("cargo:rustc-link-lib=cudart_static");
            // The C++ runtime the objects need: GNU's, or what `CXXSTDLIB` names, as cc does.
            let cxx = crate::env::cargo_var("CXXSTDLIB")
                .map_or_else(|| "stdc++".to_owned(), |v| v.to_string_lossy().into_owned());
            println!("cargo:rustc-link-lib={cxx}");
            for lib in ["dl", "rt", "pthread"] {
                println!("cargo:rustc-link-lib=dylib={lib}");
            }
            // What cc reads that changes the objects (the profile's variables are Cargo's).
            for var in CC_WATCHED {
                println!("cargo:rerun-if-env-changed={var}");
            }
        }
        Ok(report)
    }

    fn failed(&self, e: &cc::Error) -> Error {
        Error::HostCode {
            module: self.name.to_owned(),
            message: e.to_string(),
        }
    }

    /// cc configured as every host compile of the module is.
    fn cc(&self) -> cc::Build {
        let mut b = cc::Build::new();
        // cc runs the nvcc it finds in `NVCC`: the one toolkit discovery found, whatever the
        // process environment says (cc reads the rest of the environment as usual).
        let nvcc = std::ffi::OsString::from(self.nvcc.as_os_str());
        let env = std::env::vars_os()
            .filter(|(k, _)| k != "NVCC")
            .chain(std::iter::once(("NVCC".into(), nvcc)));
        b.set_envs_snapshot(env);
        // Outside a build script (no Cargo variables): the machine this runs on, optimised.
        if crate::env::cargo_var("TARGET").is_none() {
            b.target(env!("KERNEL_BUILD_RUNS_ON"))
                .host(env!("KERNEL_BUILD_RUNS_ON"));
        }
        if crate::env::cargo_var("OPT_LEVEL").is_none() {
            b.opt_level(2);
        }
        // Never cc's `-G` (device code without optimisation: a CUB sort 25x slower): the
        // device code of the host objects is optimised as the module's is; a debug profile
        // gets host debug information (`-g`) only.
        b.debug(false);
        if crate::env::cargo_var("DEBUG").is_some_and(|v| v == "true") {
            b.flag("-g");
        }
        b.cuda(true)
            .out_dir(self.out_dir)
            .cargo_metadata(false)
            .warnings(false);
        for t in self.targets {
            let (kind, number) = t.split_at(t.find('_').map_or(0, |i| i + 1));
            let virt = format!("compute_{number}");
            let code = if kind == "compute_" {
                virt.clone()
            } else {
                format!("sm_{number}")
            };
            b.flag(format!("-gencode=arch={virt},code={code}"));
        }
        for dir in &self.req.includes {
            b.include(self.req.base_dir.join(dir));
        }
        for dir in self.library_includes {
            b.include(dir);
        }
        for (name, value) in &self.req.defines {
            b.define(name, value.as_deref());
        }
        for f in self.flags() {
            b.flag(f);
        }
        b
    }

    /// The module's flags with what its device code records of its source (line tables by
    /// default, `-G` on request), as for its kernels: the device code of the host objects
    /// is reported by the tools as the module's is. The variables were read, and reported
    /// to Cargo, when the module was built.
    fn flags(&self) -> Vec<String> {
        let debug = crate::pipeline::debug_info::choose(self.req, crate::env::Reporting::Silent);
        crate::pipeline::debug_info::with_flag(self.req.flags.clone(), debug)
    }

    /// The part of every file's key that the module shares: options, toolkit, headers.
    fn common_key(&self) -> Result<KeyHasher, Error> {
        let mut k = KeyHasher::new("host-object");
        k.field(self.nvcc.as_os_str().as_encoded_bytes())
            .field(self.toolkit_version.unwrap_or_default().as_bytes());
        for t in self.targets {
            k.field(t.as_bytes());
        }
        for dir in &self.req.includes {
            k.field(self.req.base_dir.join(dir).as_os_str().as_encoded_bytes());
        }
        for dir in self.library_includes {
            k.field(dir.as_os_str().as_encoded_bytes());
        }
        for (name, value) in &self.req.defines {
            k.field(name.as_bytes())
                .field(value.as_deref().unwrap_or("\u{0}").as_bytes());
        }
        for f in self.flags() {
            k.field(f.as_bytes());
        }
        for var in CC_VARS.iter().chain(CC_WATCHED) {
            let v = crate::env::cargo_var(var).unwrap_or_default();
            k.field(var.as_bytes()).field(v.as_encoded_bytes());
        }
        let sources: Vec<PathBuf> = self
            .files
            .iter()
            .filter_map(|f| f.canonicalize().ok())
            .collect();
        let mut headers: Vec<&PathBuf> = self
            .tracked
            .iter()
            .filter(|t| !t.canonicalize().is_ok_and(|c| sources.contains(&c)))
            .collect();
        headers.sort();
        for h in headers {
            let text = std::fs::read(h).map_err(|e| Error::io("failed to read", h, e))?;
            k.field(h.as_os_str().as_encoded_bytes())
                .field(hash_bytes(&text).as_bytes());
        }
        Ok(k)
    }

    /// The object of `file`: from the store when its key is there, else compiled by nvcc
    /// (returns whether it was).
    fn object(
        &self,
        file: &Path,
        common: &KeyHasher,
        store: &Path,
    ) -> Result<(PathBuf, bool), Error> {
        let text = std::fs::read(file).map_err(|e| Error::io("failed to read", file, e))?;
        let mut k = common.clone();
        k.field(file.as_os_str().as_encoded_bytes()).field(&text);
        let object = store.join(format!("{}.o", k.finish()));
        if object.is_file() {
            return Ok((object, false));
        }
        let staging = tempfile::TempDir::with_prefix_in("host-", store)
            .map_err(|e| Error::io("failed to create a folder in", store, e))?;
        let mut b = self.cc();
        b.out_dir(staging.path()).file(file);
        let made = b.try_compile_intermediates().map_err(|e| self.failed(&e))?;
        let Some(made) = made.first() else {
            return Err(Error::HostCode {
                module: self.name.to_owned(),
                message: format!("no object was made for {}", file.display()),
            });
        };
        // Another build may have put the same object there meanwhile: same content.
        std::fs::rename(made, &object).map_err(|e| Error::io("failed to store", &object, e))?;
        Ok((object, true))
    }

    /// Writes the file defining the functions that name CUDA errors for the module's
    /// bindings (`host_functions!`), and returns its path.
    fn error_names(&self) -> Result<PathBuf, Error> {
        let (name, describe) = crate::codegen::error_name_functions(self.name);
        let text = format!(
            "// Generated by cuda-kernel-build: the names of CUDA errors, for the bindings of module `{}`.\n\
             #include <cuda_runtime_api.h>\n\
             extern \"C\" const char* {name}(int code) {{ return cudaGetErrorName(static_cast<cudaError_t>(code)); }}\n\
             extern \"C\" const char* {describe}(int code) {{ return cudaGetErrorString(static_cast<cudaError_t>(code)); }}\n",
            self.name
        );
        let path = self
            .out_dir
            .join("kernel-build")
            .join(format!("{}_host_errors.cu", self.name));
        super::outputs::write_if_changed(&path, text.as_bytes())?;
        Ok(path)
    }
}

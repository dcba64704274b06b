//! Shared helpers of cuda-kernel-build's integration tests: finding the real nvcc and
//! wrapping the fake one.

#![allow(dead_code)]

use cuda_kernel_build::__private::Toolkit;
use std::path::{Path, PathBuf};

/// The real nvcc, or `None` (with a printed reason) when there is none.
pub fn real_nvcc() -> Option<PathBuf> {
    match Toolkit::discover() {
        Ok(tk) => Some(tk.nvcc().to_path_buf()),
        Err(e) => {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "skipped: no nvcc ({e})");
            None
        }
    }
}

/// A fake nvcc for one test: a wrapper script that logs every run and behaves as `mode` says.
pub struct FakeNvcc {
    pub dir: tempfile::TempDir,
    pub path: PathBuf,
    pub log: PathBuf,
}

impl FakeNvcc {
    pub fn new(mode: &str, real: &Path) -> FakeNvcc {
        Self::make(mode, real, false)
    }

    /// A fake nvcc in `bin/` beside a `lib/` that leads to the real toolkit's libraries, so
    /// that nvJitLink and nvFatbin are found beside it as they are beside the real one.
    pub fn with_libraries(mode: &str, real: &Path) -> FakeNvcc {
        Self::make(mode, real, true)
    }

    fn make(mode: &str, real: &Path, libraries: bool) -> FakeNvcc {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("runs.log");
        let path = if libraries {
            let real = std::fs::canonicalize(real).unwrap();
            let lib = real.parent().unwrap().parent().unwrap().join("lib");
            let lib = if lib.is_dir() {
                lib
            } else {
                lib.with_file_name("lib64")
            };
            std::os::unix::fs::symlink(lib, dir.path().join("lib")).unwrap();
            std::fs::create_dir(dir.path().join("bin")).unwrap();
            dir.path().join("bin/nvcc")
        } else {
            dir.path().join("nvcc")
        };
        let script = format!(
            "#!/bin/sh\nFAKE_NVCC_LOG='{}' FAKE_NVCC_MODE='{mode}' FAKE_NVCC_REAL='{}' exec '{}' \"$@\"\n",
            log.display(),
            real.display(),
            env!("CARGO_BIN_EXE_fake-nvcc"),
        );
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        FakeNvcc { dir, path, log }
    }

    /// Every run so far, one argument line each.
    pub fn runs(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    /// Runs that compiled (`-fatbin`) or preprocessed (`-E`).
    pub fn work_runs(&self) -> usize {
        self.runs()
            .iter()
            // `-dryrun` asks a wrapper which toolkit it runs (a probe, cached with the
            // version), compiling nothing.
            .filter(|l| !l.starts_with("-dryrun"))
            .filter(|l| l.contains("-fatbin") || l.split(' ').any(|w| w == "-E"))
            .count()
    }
}

/// A crate-like folder holding CUDA sources.
pub fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// Builds `tests/real_world_forms/<file>` with the real nvcc for sm_80 and sm_90 in `link`
/// mode with nvcc `flags`, in a cache of its own, which holds the module's fatbin while the
/// folder returned with it lives; `None` (with a printed reason) without nvcc.
pub fn build_form(
    file: &str,
    link: cuda_kernel_build::LinkMode,
    flags: &[&str],
) -> Option<(cuda_kernel_build::BuiltModule, tempfile::TempDir)> {
    use cuda_kernel_build::__private::{Context, ModuleRequest, SourceInput, build_module};
    let nvcc = real_nvcc()?;
    let cache = tempfile::tempdir().unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real_world_forms");
    let mut req = ModuleRequest::new(
        file.trim_end_matches(".cu"),
        SourceInput::File { path: file.into() },
    );
    req.base_dir = dir;
    req.archs = Some(vec!["sm_80".into(), "sm_90".into()]);
    req.link = link;
    req.flags = flags.iter().map(|f| (*f).to_owned()).collect();
    let cx = Context {
        nvcc: Some(nvcc),
        cache_dir: Some(cache.path().to_path_buf()),
        ..Context::default()
    };
    let built = build_module(&req, &cx).unwrap_or_else(|e| panic!("{file}:\n{e}"));
    Some((built, cache))
}

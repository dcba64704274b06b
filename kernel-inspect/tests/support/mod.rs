//! Shared by the CLI tests: nvcc from toolkit discovery, compiling test kernels with it, and
//! a counting nvcc that logs every run before running the real one.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// nvcc from toolkit discovery, or `None` (with the reason printed) so the test can skip.
pub fn real_nvcc() -> Option<PathBuf> {
    match kernel_build::__private::toolkit::Toolkit::discover() {
        Ok(tk) => Some(tk.nvcc().to_path_buf()),
        Err(e) => {
            eprintln!("skipped: no nvcc ({e})");
            None
        }
    }
}

/// A test source under `tests/cuda/`.
pub fn source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cuda")
        .join(name)
}

/// SASS for sm_90, 100, 120 and compute_120 PTX (for kernels that need sm_90+).
pub const SM90_UP: &[&str] = &[
    "arch=compute_90,code=sm_90",
    "arch=compute_100,code=sm_100",
    "arch=compute_120,code=[sm_120,compute_120]",
];

/// Runs `nvcc <mode> <gencodes> <extra> -o <out> <src>` and returns the output bytes.
pub fn compile(nvcc: &Path, mode: &str, src: &Path, gencodes: &[&str], extra: &[&str]) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out.bin");
    let mut cmd = Command::new(nvcc);
    cmd.arg(mode);
    for g in gencodes {
        cmd.arg("-gencode").arg(g);
    }
    cmd.args(extra).arg("-o").arg(&out).arg(src);
    let result = cmd.output().expect("nvcc runs");
    assert!(
        result.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    std::fs::read(&out).expect("nvcc wrote its output")
}

/// An nvcc that appends its arguments to a log, one line per run, then runs the real one.
pub struct CountingNvcc {
    pub dir: tempfile::TempDir,
    pub path: PathBuf,
    pub log: PathBuf,
}

impl CountingNvcc {
    pub fn new(real: &Path) -> CountingNvcc {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("runs.log");
        let path = dir.path().join("nvcc");
        // `printf` writes the line at once; the log is opened for appending, so concurrent
        // runs keep their lines whole.
        let script = format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.display(),
        );
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        CountingNvcc { dir, path, log }
    }

    /// Every run so far, one argument line each.
    pub fn runs(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }
}

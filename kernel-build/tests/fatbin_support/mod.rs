//! Shared by the fatbin tests: find nvcc and compile the test kernels with it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// nvcc from toolkit discovery, or `None` (with the reason printed) so the test can skip.
pub fn nvcc() -> Option<PathBuf> {
    match cuda_kernel_build::__private::Toolkit::discover() {
        Ok(tk) => Some(tk.nvcc().to_path_buf()),
        Err(e) => {
            eprintln!("skipping: no nvcc found ({e})");
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

/// The `-gencode` list used by the tests: SASS for sm_75, 80, 90, 90a, 100, 120 and
/// compute_120 PTX.
pub const ALL_ARCHS: &[&str] = &[
    "arch=compute_75,code=sm_75",
    "arch=compute_80,code=sm_80",
    "arch=compute_90,code=sm_90",
    "arch=compute_90a,code=sm_90a",
    "arch=compute_100,code=sm_100",
    "arch=compute_120,code=[sm_120,compute_120]",
];

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

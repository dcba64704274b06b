//! The runtime's `nvtx` feature builds and passes its tests outside the workspace:
//! `examples/profiling` (excluded from the workspace, since the feature's nvtx-sys runs bindgen,
//! which needs libclang, and feature unification would force that on every member) is built
//! with its tests and binary, and its test that needs no GPU is run (the GPU ones, ncu's among
//! them, are run on their own: `cargo test --manifest-path examples/profiling/Cargo.toml`).
//!
//! Builds into `target/profiling` (kept between runs) with the project's toolkit, fetching the
//! feature's crates (nvtx, nvtx-sys, bindgen) when Cargo's cache lacks them;
//! skipped with a reason (on stderr, past the harness's capture) when no libclang is found:
//! `.tools/libclang` (what `scripts/install-test-tools.sh` installs), `LIBCLANG_PATH`, or one
//! the system's loader knows (`ldconfig -p`).
#![allow(clippy::disallowed_methods)] // reads LIBCLANG_PATH, which bindgen reads too

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use kernel_test_support::workspace_root;

/// The folder holding `libclang.so`, and where it was found.
fn libclang(root: &Path) -> Option<(PathBuf, &'static str)> {
    let tools = root.join(".tools/libclang/clang/native");
    if tools.join("libclang.so").is_file() {
        return Some((tools, ".tools/libclang"));
    }
    if let Some(dir) = std::env::var_os("LIBCLANG_PATH") {
        return Some((dir.into(), "LIBCLANG_PATH"));
    }
    let out = Command::new("ldconfig").arg("-p").output().ok()?;
    String::from_utf8_lossy(&out.stdout).lines().find_map(|l| {
        let (name, path) = l.split_once(" => ")?;
        // `libclang.so.1` or `libclang-18.so.1`, not `libclang-cpp.so.18` (the C++ API).
        let rest = name.trim().strip_prefix("libclang")?;
        let c_api = rest.starts_with(".so")
            || rest
                .strip_prefix('-')
                .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()));
        let dir = Path::new(path.trim()).parent()?;
        c_api.then(|| (dir.to_owned(), "ldconfig"))
    })
}

/// The compiler's own header folder (for `stddef.h`), which a pip libclang does not bring.
fn gcc_include() -> Option<String> {
    let out = Command::new("gcc")
        .arg("-print-file-name=include")
        .output()
        .ok()?;
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    Path::new(&dir).is_dir().then_some(dir)
}

/// Whether cargo failed for want of the network (crates it could not download).
fn unreachable_registry(stderr: &str) -> bool {
    [
        "failed to download",
        "Couldn't resolve host",
        "failed to get `",
        "failed to query replaced source",
    ]
    .iter()
    .any(|m| stderr.contains(m))
}

/// Cargo on the excluded crate's manifest, with its own target folder under the workspace's;
/// `None` where cargo cannot be started (a machine that runs built tests only).
fn cargo(root: &Path, libclang: &Path, args: &[&str]) -> Option<std::process::Output> {
    let mut c = Command::new(kernel_test_support::cargo());
    let (command, rest) = args.split_first().expect("a cargo command");
    c.arg(command)
        .arg("--manifest-path")
        .arg(root.join("examples/profiling/Cargo.toml"))
        .args(rest)
        .current_dir(root)
        .env("CARGO_TARGET_DIR", root.join("target/profiling"))
        .env("LIBCLANG_PATH", libclang)
        .env("KERNEL_CUDA_TOOLKIT_DIR", root.join(".cuda-toolkit"))
        // Set for this test by cargo; the child crate has its own.
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("KERNEL_BUILD_NO_DEVICE_CODE");
    if let Some(include) = gcc_include() {
        c.env("BINDGEN_EXTRA_CLANG_ARGS", format!("-I{include}"));
    }
    match c.output() {
        Ok(out) => Some(out),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => panic!("cargo could not be run: {e}"),
    }
}

#[test]
fn the_profiling_example_builds_with_the_nvtx_feature() {
    let root = workspace_root();
    let Some((libclang, found_in)) = libclang(&root) else {
        let _ = writeln!(
            std::io::stderr(),
            "skipped: no libclang (nvtx-sys runs bindgen): none in .tools/libclang \
             (scripts/install-test-tools.sh installs it), LIBCLANG_PATH, or ldconfig -p"
        );
        return;
    };
    let _ = writeln!(
        std::io::stderr(),
        "libclang from {found_in}: {}",
        libclang.display()
    );
    let Some(out) = cargo(&root, &libclang, &["build", "--tests", "--bins"]) else {
        let _ = writeln!(std::io::stderr(), "skipped: cargo cannot be run here");
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && unreachable_registry(&stderr) {
        let _ = writeln!(
            std::io::stderr(),
            "skipped: the nvtx feature's crates are not in Cargo's cache and the registry \
             cannot be reached"
        );
        return;
    }
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // With the feature and no tool attached, the ranges are no-ops that nest and end.
    let out = cargo(
        &root,
        &libclang,
        &[
            "test",
            "--test",
            "nvtx_ranges",
            "--",
            "--exact",
            "ranges_nest_and_end_without_a_tool",
        ],
    )
    .expect("cargo ran a moment ago");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("ranges_nest_and_end_without_a_tool ... ok"),
        "{stdout}"
    );
}

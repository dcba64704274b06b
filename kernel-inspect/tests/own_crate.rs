//! A crate of the user's own, outside this workspace, built as the README's "Use it in your own
//! crate" says: path dependencies on `cuda-kernel-runtime` (and `cuda-kernel-build` for build.rs), nvcc
//! only in the per-user folder `cuda-kernel-inspect toolkit install` fills (here: the folder made to
//! lead to the project's installed wheels, with `XDG_CACHE_HOME` pointing at it), no `NVCC`,
//! `CUDA_PATH`, nvcc on `PATH` or `.cuda-toolkit` above the crate. The crate has a build.rs
//! module with host code and a checked binding of it, and a `cuda_module!`; it must build, link
//! the host code with the static CUDA runtime, run (its GPU part skips without a GPU) and
//! report the device code it embeds, and `cuda-kernel-inspect binary` must name the module of each
//! fatbin in the executable; with no toolkit and `KERNEL_BUILD_NO_DEVICE_CODE=1`,
//! `cargo check` and `cargo doc` must pass. `cuda-kernel-inspect toolkit` must say it found the per-user
//! wheels.
//!
//! Builds into the target folder that the tests' outside crates share
//! ([`kernel_test_support::outside_target`], kept between runs), offline, with this
//! workspace's lock file; the build without a toolkit goes there too (its crate's build script
//! watches the variables that change, so it runs again and warns afresh).

use std::path::Path;
use std::process::Command;

use kernel_test_support::{cargo, outside_target, workspace_root};

const CARGO_TOML: &str = r#"[package]
name = "my-kernels"
version = "0.1.0"
edition = "2024"

[dependencies]
cuda-kernel-runtime = { path = "@ROOT@/kernel-runtime" }

[build-dependencies]
cuda-kernel-build = { path = "@ROOT@/kernel-build" }
"#;

const BUILD_RS: &str = r#"fn main() {
    cuda_kernel_build::Build::new().file("kernels/scale.cu").host_code(true).compile("scale");
    cuda_kernel_build::Build::new()
        .files(["kernels/hist.cu", "kernels/fill.cu"])
        .include("include")
        .compile("hist");
}
"#;

/// A header in an include folder that includes another beside it: the types of the
/// `hist` module's kernels.
const COMMON_CUH: &str = r#"#pragma once
#include "real.cuh"
struct HistParams { int bins; real lo; real hi; };
"#;

const REAL_CUH: &str = "#pragma once\ntypedef float real;\n";

const HIST_CU: &str = r#"#include <cuda_fp16.h>
#include "common.cuh"
/// Counts `x` into `p.bins` bins over `[p.lo, p.hi)`.
extern "C" __global__ void hist(const real* x, int n, int* counts, HistParams p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || x[i] < p.lo || x[i] >= p.hi) return;
    atomicAdd(&counts[(int)((x[i] - p.lo) / (p.hi - p.lo) * p.bins)], 1);
}
"#;

const FILL_CU: &str = r#"#include "common.cuh"
template <typename T> __global__ void fill(T* x, int n, T v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
template __global__ void fill<real>(real*, int, real);
template __global__ void fill<int>(int*, int, int);
"#;

const SCALE_CU: &str = r#"extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

extern "C" cudaError_t launch_scale(float* x, float a, int n, cudaStream_t s) {
    scale<<<(n + 255) / 256, 256, 0, s>>>(x, a, n);
    return cudaGetLastError();
}
"#;

const MAIN_RS: &str = r##"use std::sync::Arc;

use cuda_kernel_runtime::{CudaStream, Error, Gpu, Launch, TrackedBuffer, cuda_module, include_kernels};

include_kernels!(scale);

cuda_kernel_runtime::host_functions!(scale {
    /// Scales `x[0..n)` by `a` with a launch from host code.
    pub fn launch_scale(x: &mut TrackedBuffer<f32>, a: f32, n: i32, s: &Arc<CudaStream>)
        -> Result<(), Error>;
});

cuda_module! {
    mod inline {
        source = r#"
            extern "C" __global__ void add(float* x, float b, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] += b;
            }
        "#;
    }
}

include_kernels!(hist);

/// Counts `x` into 4 bins over [0, 4) with the `hist` module's kernels.
fn histogram(gpu: &Gpu, x: &[f32]) -> Result<Vec<i32>, Error> {
    let m = hist::load(gpu)?;
    let n = x.len() as i32;
    let x = gpu.upload(x)?;
    let mut counts = gpu.upload(&[7i32; 4])?;
    let params = hist::HistParams { bins: 4, lo: 0.0, hi: 4.0 };
    // SAFETY: fill writes counts[0..4) and hist reads x[0..n) and adds to counts[0..4).
    unsafe {
        m.fill::<i32>(&Launch::for_num_elems(4), &mut counts, 4, 0)?;
        m.hist(&Launch::for_num_elems(n as u32), &x, n, &mut counts, params)?;
    }
    gpu.download(&counts)
}

fn main() -> Result<(), cuda_kernel_runtime::Error> {
    println!("scale embeds {:?}", scale::METADATA.archs);
    println!("inline embeds {:?}", inline::METADATA.archs);
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("no GPU: {e}");
            return Ok(());
        }
    };
    let mut x = gpu.upload(&[1.0f32, 2.0, 3.0])?;
    let cfg = Launch::for_num_elems(3);
    // SAFETY: both kernels touch x[i] for i < 3 only; x holds 3.
    unsafe {
        scale::load(&gpu)?.scale(&cfg, &mut x, 2.0, 3)?;
        inline::load(&gpu)?.add(&cfg, &mut x, 1.0, 3)?;
        launch_scale(&mut x, 10.0, 3, gpu.stream())?;
    }
    assert_eq!(gpu.download(&x)?, [30.0, 50.0, 70.0]);
    assert_eq!(histogram(&gpu, &[0.5, 3.5, 1.0, 1.5, 9.0, 3.0, 3.25])?, [1, 2, 0, 3]);
    println!("GPU result checked");
    Ok(())
}
"##;

/// `PATH` without any folder holding an `nvcc`.
fn path_without_nvcc() -> String {
    #[allow(
        clippy::disallowed_methods,
        reason = "the test builds the child's environment"
    )]
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|d| !d.join("nvcc").exists())
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// A command with the user's environment: only the per-user toolkit.
fn user_command(program: &Path, xdg: &Path) -> Command {
    let mut c = Command::new(program);
    for var in [
        "NVCC",
        "CUDA_PATH",
        "CUDA_HOME",
        "KERNEL_CUDA_TOOLKIT_DIR",
        "KERNEL_BUILD_CACHE_DIR",
        "KERNEL_BUILD_NO_DEVICE_CODE",
        "RUSTC_WRAPPER",
        // Set for this test by cargo; a user's shell has none.
        "CARGO_MANIFEST_DIR",
        "KERNEL_NVRTC_LIBRARY",
    ] {
        c.env_remove(var);
    }
    c.env("PATH", path_without_nvcc())
        .env("XDG_CACHE_HOME", xdg);
    c
}

#[test]
fn a_crate_of_ones_own_builds_with_the_per_user_toolkit() {
    let root = workspace_root();
    let wheels = root.join(".cuda-toolkit");
    if !wheels.join("nvidia/cu13/bin/nvcc").exists() {
        println!(
            "skipped: no installed wheels at {} to stand for the per-user folder",
            wheels.display()
        );
        return;
    }
    if Path::new("/usr/local/cuda/bin/nvcc").exists() {
        println!("skipped: /usr/local/cuda/bin/nvcc would be found before the per-user folder");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let xdg = tmp.path().join("cache");
    std::fs::create_dir_all(xdg.join("kernel-build")).unwrap();
    std::os::unix::fs::symlink(&wheels, xdg.join("kernel-build/cuda-toolkit")).unwrap();

    let krate = tmp.path().join("my-kernels");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::create_dir_all(krate.join("kernels")).unwrap();
    let manifest = CARGO_TOML.replace("@ROOT@", &root.display().to_string());
    std::fs::write(krate.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(krate.join("build.rs"), BUILD_RS).unwrap();
    std::fs::write(krate.join("kernels/scale.cu"), SCALE_CU).unwrap();
    std::fs::write(krate.join("kernels/hist.cu"), HIST_CU).unwrap();
    std::fs::write(krate.join("kernels/fill.cu"), FILL_CU).unwrap();
    std::fs::create_dir_all(krate.join("include")).unwrap();
    std::fs::write(krate.join("include/common.cuh"), COMMON_CUH).unwrap();
    std::fs::write(krate.join("include/real.cuh"), REAL_CUH).unwrap();
    std::fs::write(krate.join("src/main.rs"), MAIN_RS).unwrap();
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();

    let inspect = Path::new(env!("CARGO_BIN_EXE_cuda-kernel-inspect"));
    let out = user_command(inspect, &xdg)
        .arg("toolkit")
        .current_dir(&krate)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("found via the per-user nvcc wheels")
            && text.contains("include/cuda_runtime.h"),
        "{text}"
    );

    let cargo = cargo();
    let target = outside_target();
    let out = user_command(&cargo, &xdg)
        // `-vv` shows the build script's lines as they come: one per finished nvcc run.
        .args(["run", "--offline", "-vv"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(&krate)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("cuda-kernel-build: compiled `kernels/hist.cu` for "),
        "no progress line in:\n{stderr}"
    );
    // A file of a module of several is compiled once per virtual architecture; each line
    // names the targets that run built.
    assert!(
        stderr.contains("cuda-kernel-build: compiled `kernels/hist.cu` for sm_75 in ")
            && !stderr.contains(" for compute_75 in "),
        "{stderr}"
    );
    assert!(stdout.contains("scale embeds [\"sm_75\""), "{stdout}");
    assert!(stdout.contains("inline embeds [\"sm_75\""), "{stdout}");
    assert!(
        stdout.contains("no GPU:") || stdout.contains("GPU result checked"),
        "{stdout}"
    );

    embedded_modules_are_named(inspect, &target.join("debug/my-kernels"));
    editor_files_name_every_file(inspect, &krate, &target);
    no_toolkit_check_and_doc(&cargo, &krate, &tmp.path().join("empty-cache"), &target);
}

/// The build wrote a compilation database under the target folder with the nvcc command of
/// each `.cu` file (its include folders and targets among the arguments), and `cuda-kernel-
/// inspect editor` finds it from the crate's folder. The folder's other crates (and this
/// test's earlier runs) have entries there too: each file is looked up by its own path.
fn editor_files_name_every_file(inspect: &Path, krate: &Path, target: &Path) {
    let database = target.join("cuda-kernel-build/compile_commands.json");
    let text = std::fs::read_to_string(&database)
        .unwrap_or_else(|e| panic!("{}: {e}", database.display()));
    let entries: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    for file in ["scale.cu", "hist.cu", "fill.cu"] {
        let path = std::fs::canonicalize(krate.join("kernels").join(file)).unwrap();
        let entry = entries
            .iter()
            .find(|e| {
                e["file"]
                    .as_str()
                    .is_some_and(|f| std::fs::canonicalize(f).is_ok_and(|f| f == path))
            })
            .unwrap_or_else(|| panic!("no entry for {file} in {text}"));
        let args = entry["arguments"].to_string();
        assert!(
            args.contains("nvcc") && args.contains("arch=compute_75,code=sm_75"),
            "{args}"
        );
    }
    let out = Command::new(inspect)
        .arg("editor")
        .env("CARGO_TARGET_DIR", target)
        .current_dir(krate)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{shown}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        shown.contains("compile_commands.json: ") && shown.contains("kernels/hist.cu"),
        "{shown}"
    );
}

/// `cuda-kernel-inspect binary` on the built program: each module's image behind its label
/// (the two files of `hist` side by side in one image), and the fatbins nvcc put in the host
/// code's objects, which have none.
fn embedded_modules_are_named(inspect: &Path, exe: &Path) {
    let out = Command::new(inspect)
        .args(["binary", "--json"])
        .arg(exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut labels: Vec<(&str, u64)> = json["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap(),
                l["containers"].as_u64().unwrap(),
            )
        })
        .collect();
    labels.sort();
    assert_eq!(labels, [("hist", 2), ("inline", 1), ("scale", 1)], "{json}");
    for m in json["modules"].as_array().unwrap() {
        match m["name"].as_str() {
            Some(_) => assert_eq!(m["section"], ".rodata", "{m}"),
            None => assert_eq!(m["section"], ".nv_fatbin", "{m}"),
        }
    }
}

/// With no toolkit at all and no device code (`KERNEL_BUILD_NO_DEVICE_CODE=1`, or docs.rs's
/// `DOCS_RS=1`): `cargo check` and `cargo doc` pass (stubs and bindings from the
/// declarations, the user's headers read for their types, nothing linked), and the build
/// says that its modules have no device code. Into the folder the build with nvcc used: what
/// both share (the dependencies' build scripts, the macros, the build library) is reused, the
/// crate's build script runs again (it watches the variables that changed) and the crate
/// itself is checked and documented afresh, its macros expanded without a toolkit. The crate
/// alone is documented (`--no-deps`, as docs.rs documents a crate): the pages of its
/// dependencies are not what this tests, and making them was most of its time.
fn no_toolkit_check_and_doc(cargo: &Path, krate: &Path, empty: &Path, target: &Path) {
    std::fs::create_dir_all(empty).unwrap();
    for (var, args) in [
        ("KERNEL_BUILD_NO_DEVICE_CODE", &["check", "--offline"][..]),
        (
            "KERNEL_BUILD_NO_DEVICE_CODE",
            &["doc", "--offline", "--no-deps"],
        ),
        ("DOCS_RS", &["doc", "--offline", "--no-deps"]),
    ] {
        let out = user_command(cargo, empty)
            .args(args)
            .env(var, "1")
            .env("CARGO_TARGET_DIR", target)
            .current_dir(krate)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "cargo {args:?} with {var}: {stderr}");
        // Cargo replays a build script's warnings when the script ran, or was fresh.
        for module in ["scale", "hist"] {
            assert!(
                stderr.contains(&format!("module `{module}` was built without device code")),
                "cargo {args:?} with {var}: no warning for `{module}`:\n{stderr}"
            );
        }
    }
}

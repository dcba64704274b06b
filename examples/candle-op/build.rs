//! Checks, before candle's long build, that the link will find what candle links, and records
//! where the CUDA libraries were found so that the program finds them when it runs.
//!
//! candle-core's `cuda` feature links `libcuda`, `libnvrtc`, `libcurand`, `libcublas`,
//! `libcublasLt` and `libcudart` by their unversioned names (`-lcuda`, ...), searched where
//! cudarc's build script searches: under `CUDA_HOME`, `CUDA_PATH`, `CUDA_ROOT` or
//! `CUDA_TOOLKIT_ROOT_DIR` when one is set, else under `/usr`, `/usr/local/cuda`, `/opt/cuda`
//! and `/usr/lib/cuda`, and in the linker's own folders. A name missing there would fail the
//! link after many minutes of compiling; this script fails before the link and says what to do
//! (Cargo still lets the jobs already running finish, candle's kernels among them). The
//! folders that held the toolkit's libraries go into the binary's run path (never a `stubs`
//! folder, and never for `libcuda`, which the driver provides where the loader looks).

#![allow(
    clippy::disallowed_methods,
    reason = "the repository's rule is for its own crates' build code: this script announces \
              every variable it reads with rerun-if-env-changed itself"
)]

use std::env;
use std::path::{Path, PathBuf};

/// What candle links by name (cudarc's `dynamic-linking` for the driver, NVRTC, cuRAND and
/// cuBLAS; candle's kernels for the CUDA runtime).
const LINKED: [&str; 6] = ["cuda", "nvrtc", "curand", "cublas", "cublasLt", "cudart"];

/// cudarc's variables for the toolkit's root; when none is set, it searches the typical roots.
const ROOT_VARIABLES: [&str; 4] = [
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_ROOT",
    "CUDA_TOOLKIT_ROOT_DIR",
];
const TYPICAL_ROOTS: [&str; 4] = ["/usr", "/usr/local/cuda", "/opt/cuda", "/usr/lib/cuda"];
/// The folders under a root that cudarc adds to the link's search path (on Linux).
const UNDER_ROOT: [&str; 9] = [
    "lib",
    "lib/stubs",
    "lib/x86_64",
    "lib/x86_64-linux-gnu",
    "lib64",
    "lib64/stubs",
    "targets/x86_64-linux",
    "targets/x86_64-linux/lib",
    "targets/x86_64-linux/lib/stubs",
];
/// Where the linker looks by itself.
const SYSTEM: [&str; 6] = [
    "/usr/lib/x86_64-linux-gnu",
    "/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/lib64",
    "/usr/lib",
    "/lib",
];

fn main() {
    for variable in ROOT_VARIABLES.iter().chain(&["LIBRARY_PATH", "PATH"]) {
        println!("cargo:rerun-if-env-changed={variable}");
    }
    println!("cargo:rerun-if-changed=build.rs");
    if env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }

    let set: Vec<PathBuf> = ROOT_VARIABLES
        .iter()
        .filter_map(env::var_os)
        .map(PathBuf::from)
        .collect();
    let roots = if set.is_empty() {
        TYPICAL_ROOTS.iter().map(PathBuf::from).collect()
    } else {
        set
    };
    let mut folders: Vec<PathBuf> = roots
        .iter()
        .flat_map(|root| UNDER_ROOT.iter().map(move |sub| root.join(sub)))
        .collect();
    folders.extend(
        env::var_os("LIBRARY_PATH")
            .iter()
            .flat_map(env::split_paths),
    );
    folders.extend(SYSTEM.iter().map(PathBuf::from));

    let mut missing = Vec::new();
    let mut run_path: Vec<&Path> = Vec::new();
    for name in LINKED {
        let file = format!("lib{name}.so");
        match folders.iter().find(|f| f.join(&file).exists()) {
            None => missing.push(file),
            Some(folder) => {
                let system = SYSTEM.iter().any(|s| folder == Path::new(s));
                let stubs = folder.ends_with("stubs");
                if name != "cuda" && !system && !stubs && !run_path.contains(&folder.as_path()) {
                    run_path.push(folder);
                }
            }
        }
    }
    let nvcc = env::var_os("PATH")
        .iter()
        .flat_map(env::split_paths)
        .any(|dir| dir.join("nvcc").is_file());

    if !missing.is_empty() || !nvcc {
        let mut what = Vec::new();
        if !missing.is_empty() {
            what.push(format!("the link names {}", missing.join(", ")));
        }
        if !nvcc {
            what.push("nvcc on PATH".to_owned());
        }
        let searched = if ROOT_VARIABLES.iter().any(|v| env::var_os(v).is_some()) {
            "under CUDA_HOME/CUDA_PATH/CUDA_ROOT/CUDA_TOOLKIT_ROOT_DIR"
        } else {
            "under /usr, /usr/local/cuda, /opt/cuda and /usr/lib/cuda (no CUDA_HOME set)"
        };
        panic!(
            "\n\ncandle-op: candle links the CUDA libraries when the program is linked, and this \
             machine lacks {} (searched {searched}, in LIBRARY_PATH and the linker's folders).\n\
             Without a system CUDA toolkit, install the wheels candle links and their link \
             names, from the repository's root:\n\n    \
             scripts/install-cuda-toolkit.sh --with curand,cublas --linkable\n    \
             . .cuda-toolkit/link-env.sh\n\n\
             then build again in this shell. With a system toolkit, set CUDA_HOME to it and put \
             its bin/ on PATH (see README.md).\n",
            what.join(" and ")
        );
    }

    for folder in run_path {
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{}", folder.display());
    }
}

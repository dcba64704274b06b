//! What compiling at run time costs. A 15-kernel source (`cuda/fifteen.cu`): NVRTC compiling
//! it to a cubin for one architecture against `nvcc -cubin` for the same (same run, medians of
//! 5); a disk-cache hit (median of 20); and the first `load` of a generated module compiled at
//! run time, cold (empty cache: NVRTC runs) and cached, against the same module built with
//! nvcc and embedded as a fatbin (medians of 5, each a fresh spec so no per-context cache
//! helps). Prints `BENCH {json}` lines. Without a GPU the compile and cache rows still run
//! (for sm_90) and the load rows are skipped.
//!
//! NVRTC 12.9+ keeps its own cache in the driver's compute cache when a driver is present:
//! the cold rows pass `--no-cache` so that they measure a compilation, and one row shows a
//! compilation NVRTC serves from that cache.
//!
//! ```text
//! cargo bench -p kernel-tests --bench runtime_compile
//! ```
#![allow(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use cuda_kernel_runtime::__private::{load_module, load_module_with};
use cuda_kernel_runtime::spec::ModuleSpec;
use cuda_kernel_runtime::{CompileOptions, Gpu, Nvrtc, Program, cuda_module};
use kernel_test_support::bench::{median, report};

cuda_module! {
    mod fifteen_runtime {
        compile = "runtime";
        file = "cuda/fifteen.cu";
    }
}

cuda_module! {
    mod fifteen_embedded {
        file = "cuda/fifteen.cu";
    }
}

const SOURCE: &str = include_str!("../cuda/fifteen.cu");

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// nvcc: the toolkit's, else on PATH, else the project's wheels.
fn nvcc() -> Option<PathBuf> {
    let project =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../.cuda-toolkit/nvidia/cu13/bin/nvcc");
    [
        PathBuf::from("/usr/local/cuda/bin/nvcc"),
        PathBuf::from("nvcc"),
        project,
    ]
    .into_iter()
    .find(|p| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// A copy of `spec` at a new address, so the per-context module cache misses.
fn fresh(spec: &'static ModuleSpec) -> &'static ModuleSpec {
    Box::leak(Box::new(ModuleSpec {
        name: spec.name,
        image: spec.image,
        archs: spec.archs,
        toolkit: spec.toolkit,
        kernels: spec.kernels,
        globals: spec.globals,
        units: spec.units,
        source: spec.source,
        tuned: spec.tuned,
    }))
}

fn main() {
    let cache = tempfile::tempdir().expect("temp dir");
    // SAFETY: set before any other thread exists; the runtime reads it on each compilation.
    unsafe { std::env::set_var("KERNEL_RUNTIME_CACHE_DIR", cache.path()) };
    let t = Instant::now();
    let nvrtc = match Nvrtc::load() {
        Ok(n) => n,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    report("opening NVRTC (once per process)", ms(t), "ms");
    let gpu = Gpu::new(0).ok();
    let arch = gpu.as_ref().map_or_else(|| "sm_90".to_owned(), Gpu::arch);
    println!(
        "NVRTC {}.{}, target {arch}",
        nvrtc.version().0,
        nvrtc.version().1
    );

    let program = || Program::new(SOURCE).name("fifteen.cu");
    let uncached = || program().no_cache().option("--no-cache");
    uncached().compile(&arch).unwrap();
    let samples = (0..5)
        .map(|_| {
            let t = Instant::now();
            uncached().compile(&arch).unwrap();
            ms(t)
        })
        .collect();
    let nvrtc_ms = median(samples);
    report(
        &format!("NVRTC compile, 15 kernels, {arch}"),
        nvrtc_ms,
        "ms",
    );
    program().no_cache().compile(&arch).unwrap();
    let samples = (0..5)
        .map(|_| {
            let t = Instant::now();
            program().no_cache().compile(&arch).unwrap();
            ms(t)
        })
        .collect();
    report(
        "NVRTC compile served by its own (driver) cache, when a driver is present",
        median(samples),
        "ms",
    );

    match nvcc() {
        Some(nvcc) => {
            let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda/fifteen.cu");
            let out = cache.path().join("fifteen.cubin");
            let samples = (0..5)
                .map(|_| {
                    let t = Instant::now();
                    let status = Command::new(&nvcc)
                        .args(["-cubin", &format!("-arch={arch}"), "-o"])
                        .arg(&out)
                        .arg(&file)
                        .status()
                        .expect("nvcc runs");
                    assert!(status.success());
                    ms(t)
                })
                .collect();
            let nvcc_ms = median(samples);
            report(&format!("nvcc -cubin, 15 kernels, {arch}"), nvcc_ms, "ms");
            report("NVRTC / nvcc", nvrtc_ms / nvcc_ms, "ratio");
        }
        None => println!("skipped: nvcc row (no nvcc found)"),
    }

    let cached = program().cache_dir(cache.path());
    cached.compile(&arch).unwrap();
    let before = Nvrtc::compilations();
    let samples = (0..20)
        .map(|_| {
            let t = Instant::now();
            cached.compile(&arch).unwrap();
            ms(t)
        })
        .collect();
    assert_eq!(Nvrtc::compilations(), before, "every hit compiled nothing");
    report("disk cache hit, 15 kernels", median(samples), "ms");

    let Some(gpu) = gpu else {
        println!("skipped: load rows (no GPU)");
        return;
    };
    let spec = &fifteen_runtime::METADATA;
    let entries = cache.path().join("nvrtc");
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let mut embedded = Vec::new();
    let cold_opts = CompileOptions {
        options: &["--no-cache"],
        ..Default::default()
    };
    for _ in 0..5 {
        let _ = std::fs::remove_dir_all(&entries);
        let t = Instant::now();
        drop(load_module_with(&gpu, fresh(spec), &cold_opts).unwrap());
        cold.push(ms(t));
        let t = Instant::now();
        drop(load_module_with(&gpu, fresh(spec), &cold_opts).unwrap());
        warm.push(ms(t));
        let t = Instant::now();
        drop(load_module(&gpu, fresh(&fifteen_embedded::METADATA)).unwrap());
        embedded.push(ms(t));
    }
    report(
        "first load, compiled at run time, cold (NVRTC)",
        median(cold),
        "ms",
    );
    report(
        "first load, compiled at run time, cached",
        median(warm),
        "ms",
    );
    report("first load, embedded fatbin", median(embedded), "ms");
}

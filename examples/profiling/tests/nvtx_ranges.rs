//! The runtime's NVTX ranges, seen by Nsight Compute: `ncu --nvtx --nvtx-include
//! "cuda-kernel@<range>/"` must profile exactly the launches inside that range, for a
//! kernel's own range (`profiled::scale`) and for a phase of the program's (`phase`).
//!
//! ncu runs this test binary again as its child, for the ignored `workload_child` only (with
//! `PROFILING_CHILD=1`), and its `==PROF== Profiling "<kernel>"` lines are counted per kernel.
//! Without a GPU the GPU tests skip with the reason (and fail when `KERNEL_REQUIRE_GPU=1`);
//! without ncu (on `PATH`, in `$NCU`, `$CUDA_PATH/bin`, `/usr/local/cuda/bin` or
//! `/opt/nvidia/nsight-compute/*`), or when ncu may not read the GPU's counters, the ncu test
//! skips with the reason. The ranges themselves are tested without any tool too: NVTX calls
//! are then no-ops and must cost nothing but a call.
#![allow(clippy::disallowed_methods)] // the child reads its role from the environment

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_kernel_profiling_example::{EXPECTED, profiled, reference, run};
use cuda_kernel_runtime::profile;
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

// The example is built with the `nvtx` feature.
const _: () = assert!(profile::ENABLED);

/// The variable that makes `workload_child` run the workload.
const CHILD: &str = "PROFILING_CHILD";

#[test]
fn ranges_nest_and_end_without_a_tool() {
    assert_eq!(profile::DOMAIN, "cuda-kernel");
    // The module's name, as the ranges (and the crate's docs) name its kernels.
    assert_eq!(profiled::METADATA.name, "profiled");
    for i in 0..10_000 {
        let _outer = profile::range("outer");
        let _inner = profile::Range::new(&format!("inner {i}"));
    }
}

#[test]
fn the_workload_runs_inside_its_ranges() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x = Rng::with_seed(5).nonzero_f32s(10_000);
    let y = run(&gpu, &x).unwrap();
    assert_close(&y, &reference(&x), 0.0);
}

/// ncu, where it is usually found.
fn find_ncu() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("NCU") {
        candidates.push(p.into());
    }
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("ncu")));
    }
    if let Some(cuda) = std::env::var_os("CUDA_PATH") {
        candidates.push(Path::new(&cuda).join("bin/ncu"));
    }
    candidates.push("/usr/local/cuda/bin/ncu".into());
    if let Ok(dirs) = std::fs::read_dir("/opt/nvidia/nsight-compute") {
        let mut versions: Vec<PathBuf> = dirs.filter_map(|d| Some(d.ok()?.path())).collect();
        versions.sort();
        candidates.extend(versions.into_iter().rev().map(|d| d.join("ncu")));
    }
    candidates.into_iter().find(|p| p.is_file())
}

/// What ncu profiled with `filter`: how many launches of each kernel, or the reason it could
/// not profile at all.
fn profile_with(ncu: &Path, filter: &str) -> Result<(usize, usize), String> {
    let out = Command::new(ncu)
        .args([
            "--nvtx",
            "--nvtx-include",
            filter,
            "--metrics",
            "gpu__time_duration.sum",
            "--target-processes",
            "all",
        ])
        .arg(std::env::current_exe().unwrap())
        .args([
            "workload_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env(kernel_test_support::REQUIRE_GPU, "1")
        .output()
        .map_err(|e| format!("{} could not be run: {e}", ncu.display()))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("ncu --nvtx-include {filter:?}:\n{text}");
    if text.contains("ERR_NVGPUCTRPERM") {
        return Err(
            "ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM)".into(),
        );
    }
    assert!(
        out.status.success(),
        "ncu or its child failed ({}); see the output above",
        out.status
    );
    assert!(
        text.contains("workload done"),
        "the child did not run the workload"
    );
    let count = |kernel: &str| {
        text.matches(&format!("==PROF== Profiling \"{kernel}\""))
            .count()
    };
    Ok((count("scale"), count("offset")))
}

#[test]
fn ncu_profiles_exactly_the_launches_of_the_range_asked_for() {
    let Some(_gpu) = gpu_or_skip() else { return };
    let Some(ncu) = find_ncu() else {
        let _ = writeln!(
            std::io::stderr(),
            "skipped: no ncu (Nsight Compute) on PATH, in $NCU, $CUDA_PATH/bin, /usr/local/cuda/bin or /opt/nvidia/nsight-compute"
        );
        return;
    };
    let module = profiled::METADATA.name;
    for (range, scale, offset) in EXPECTED {
        let range = range.replace("profiled::", &format!("{module}::"));
        let filter = format!("{}@{range}/", profile::DOMAIN);
        match profile_with(&ncu, &filter) {
            Ok(counts) => assert_eq!(
                counts,
                (scale, offset),
                "{filter}: profiled (scale, offset) launches"
            ),
            Err(reason) => {
                let _ = writeln!(std::io::stderr(), "skipped: {reason}");
                return;
            }
        }
    }
}

/// The program ncu profiles: the workload, once. Never run with other GPU tests.
#[test]
#[ignore = "run under ncu by ncu_profiles_exactly_the_launches_of_the_range_asked_for"]
fn workload_child() {
    if std::env::var_os(CHILD).is_none() {
        println!("skipped: runs only under ncu, as the child of this file's ncu test");
        return;
    }
    let gpu = gpu_or_skip().expect("the parent saw a GPU");
    let x = Rng::with_seed(6).nonzero_f32s(4096);
    let y = run(&gpu, &x).unwrap();
    assert_close(&y, &reference(&x), 0.0);
    println!("workload done");
}

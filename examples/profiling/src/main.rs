//! Runs the workload of the library (two kernels, launched inside the program's own NVTX
//! ranges) and says how to look at it with Nsight Systems and Nsight Compute.
//!
//! Exit status: 0 when the result matches the CPU's, 1 when it does not or a call fails, 2
//! when no GPU can be opened.

use std::process::ExitCode;

use cuda_kernel_profiling_example::{profiled, reference, run};
use cuda_kernel_runtime::{Gpu, profile};

fn main() -> ExitCode {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("not run, no GPU is usable: {e}");
            return ExitCode::from(2);
        }
    };
    let x: Vec<f32> = (0..4096).map(|i| 0.25 + (i % 17) as f32).collect();
    let y = {
        let _all = profile::range("profiling example");
        run(&gpu, &x)
    };
    let y = match y {
        Ok(y) => y,
        Err(e) => {
            eprintln!("the workload failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let bad = y
        .iter()
        .zip(reference(&x))
        .filter(|(g, w)| **g != *w)
        .count();
    println!(
        "{} ({}): {} elements, {bad} mismatches",
        gpu.name(),
        gpu.arch(),
        y.len()
    );
    let (domain, module) = (profile::DOMAIN, profiled::METADATA.name);
    println!("timeline:        nsys profile -t cuda,nvtx ./cuda-kernel-profiling-example");
    println!(
        "one kernel:      ncu --nvtx --nvtx-include \"{domain}@{module}::scale/\" ./cuda-kernel-profiling-example"
    );
    println!(
        "one phase:       ncu --nvtx --nvtx-include \"{domain}@phase/\" ./cuda-kernel-profiling-example"
    );
    if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

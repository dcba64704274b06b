//! One `RawLibrary` for every GPU against one `RawModule` load per GPU: the embedded fatbin of a
//! 12-kernel module made usable on each GPU of the machine (and a first kernel resolved
//! there), by `RawLibrary::load_bytes` + `library.module(&gpu)` per GPU, and by
//! `RawModule::load_bytes(&gpu)` per GPU (`cuModuleLoadData` each time). Medians of 15, the two
//! ways alternating. Prints `BENCH {json}` lines. Without a GPU it says why and exits
//! successfully (unless `KERNEL_REQUIRE_GPU=1`).
//!
//! ```text
//! cargo bench -p kernel-tests --bench library_load
//! ```
#![allow(missing_docs)]

use std::time::Instant;

use cuda_kernel_runtime::{Gpu, RawLibrary, RawModule, cuda_module};
use kernel_test_support::bench::{median, report};
use kernel_test_support::gpu_or_skip;

cuda_module! {
    /// Twelve small kernels.
    mod twelve {
        source = r#"
            #define K(N) extern "C" __global__ void k##N(float* x, int n) { \
                int i = blockIdx.x * blockDim.x + threadIdx.x; \
                if (i < n) x[i] = x[i] * (N + 1.5f) + sinf(x[i]) * N; }
            K(0) K(1) K(2) K(3) K(4) K(5) K(6) K(7) K(8) K(9) K(10) K(11)
        "#;
    }
}

const REPS: usize = 15;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let Some(first) = gpu_or_skip() else { return };
    let mut gpus = vec![first];
    for ordinal in 1..Gpu::count().unwrap() {
        gpus.push(Gpu::new(ordinal).unwrap());
    }
    println!("{} GPU(s)", gpus.len());
    let image = twelve::METADATA.image.expect("built with device code");
    // Warm every context and the driver.
    for g in &gpus {
        drop(RawModule::load_bytes(g, image).unwrap());
    }
    let (mut lib_ms, mut mod_ms) = (Vec::new(), Vec::new());
    for rep in 0..REPS {
        let mut run_library = || {
            let t = Instant::now();
            let lib = RawLibrary::load_bytes(image).unwrap();
            let modules: Vec<RawModule> = gpus.iter().map(|g| lib.module(g).unwrap()).collect();
            for m in &modules {
                m.kernel("k0").unwrap();
            }
            lib_ms.push(ms(t));
        };
        let mut run_modules = || {
            let t = Instant::now();
            let modules: Vec<RawModule> = gpus
                .iter()
                .map(|g| RawModule::load_bytes(g, image).unwrap())
                .collect();
            for m in &modules {
                m.kernel("k0").unwrap();
            }
            mod_ms.push(ms(t));
        };
        if rep % 2 == 0 {
            run_library();
            run_modules();
        } else {
            run_modules();
            run_library();
        }
    }
    let n = gpus.len();
    report(
        &format!("one RawLibrary, module on {n} GPU(s)"),
        median(lib_ms),
        "ms",
    );
    report(
        &format!("RawModule::load_bytes on {n} GPU(s)"),
        median(mod_ms),
        "ms",
    );
}

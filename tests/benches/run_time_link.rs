//! What linking at run time costs: the LTO-IR of two files (a kernel and the device function
//! it calls) linked by nvJitLink into a cubin for the GPU's architecture, and the resulting
//! cubin loaded; medians of 10. Prints `BENCH {json}` lines. Without a GPU it says why and
//! exits successfully (unless `KERNEL_REQUIRE_GPU=1`).
//!
//! ```text
//! cargo bench -p kernel-tests --bench run_time_link
//! ```
#![allow(missing_docs)]

use std::time::Instant;

use kernel_runtime::{Linker, ObjectCode};
use kernel_test_support::bench::{median, report};
use kernel_test_support::gpu_or_skip;

const KERNEL_LTO: &[u8] = include_bytes!("../cuda/objects/lto_kernel.ltoir");
const POLY_LTO: &[u8] = include_bytes!("../cuda/objects/lto_poly.ltoir");

fn main() {
    let Some(gpu) = gpu_or_skip() else { return };
    let linker = Linker::new()
        .input(ObjectCode::lto_ir(KERNEL_LTO.to_vec()))
        .input(ObjectCode::lto_ir(POLY_LTO.to_vec()));
    let arch = gpu.arch();
    // The first link also loads nvJitLink.
    let t = Instant::now();
    let first = linker.link_for(&arch).unwrap();
    report(
        "first link (loads nvJitLink)",
        t.elapsed().as_secs_f64() * 1e3,
        "ms",
    );
    let (mut link, mut load) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        let t = Instant::now();
        let linked = linker.link_for(&arch).unwrap();
        link.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let m = linked.code.load(&gpu).unwrap();
        load.push(t.elapsed().as_secs_f64() * 1e3);
        drop(m);
    }
    report("LTO-IR pair linked for this GPU", median(link), "ms");
    report("linked cubin loaded", median(load), "ms");
    println!("cubin: {} bytes", first.code.bytes().len());
}

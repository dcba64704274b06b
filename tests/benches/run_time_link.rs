//! What linking at run time costs. Two pairs of files, each a kernel file calling device
//! functions of the other: one kernel (`lto_*`) and ten kernels (`lto10_*`). Timed: nvJitLink
//! linking their LTO-IR into a cubin for the GPU's architecture, the driver's linker
//! (`cuLink*`) linking the kernels' PTX with the functions' relocatable sm_90 cubin (sm_90
//! GPUs only), and the load of the linked cubin; medians of 10. Prints `BENCH {json}` lines.
//! Without a GPU it says why and exits successfully (unless `KERNEL_REQUIRE_GPU=1`).
//!
//! ```text
//! cargo bench -p kernel-tests --bench run_time_link
//! ```
#![allow(missing_docs)]

use std::time::Instant;

use cuda_kernel_runtime::{Gpu, Linker, ObjectCode};
use kernel_test_support::bench::{median, report};
use kernel_test_support::gpu_or_skip;

const ONE: [&[u8]; 2] = [
    include_bytes!("../cuda/objects/lto_kernel.ltoir"),
    include_bytes!("../cuda/objects/lto_poly.ltoir"),
];
const TEN: [&[u8]; 2] = [
    include_bytes!("../cuda/objects/lto10_kernels.ltoir"),
    include_bytes!("../cuda/objects/lto10_funcs.ltoir"),
];
const TEN_PTX: &str = include_str!("../cuda/objects/lto10_kernels.ptx");
const TEN_RDC_SM90: &[u8] = include_bytes!("../cuda/objects/lto10_funcs.sm_90.cubin");

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Times `linker` 10 times (after one untimed link) and the loads of its cubin.
fn time(gpu: &Gpu, name: &str, linker: &Linker) {
    let (first, _) = linker.link(gpu).unwrap();
    drop(first);
    let arch = gpu.arch();
    let (mut link, mut load) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        let t = Instant::now();
        let (module, linked) = linker.link(gpu).unwrap();
        link.push(ms(t));
        drop(module);
        let t = Instant::now();
        let m = linked.code.load(gpu).unwrap();
        load.push(ms(t));
        drop(m);
    }
    report(
        &format!("{name}: link + load for {arch}"),
        median(link),
        "ms",
    );
    report(
        &format!("{name}: load of the linked cubin"),
        median(load),
        "ms",
    );
}

fn main() {
    let Some(gpu) = gpu_or_skip() else { return };
    let pair = |files: [&[u8]; 2]| {
        Linker::new()
            .input(ObjectCode::lto_ir(files[0].to_vec()))
            .input(ObjectCode::lto_ir(files[1].to_vec()))
    };
    // The very first link also loads nvJitLink.
    let t = Instant::now();
    pair(ONE).link_for(&gpu.arch()).unwrap();
    report("first nvJitLink link (loads the library)", ms(t), "ms");
    time(&gpu, "1 kernel, nvJitLink LTO", &pair(ONE));
    time(&gpu, "10 kernels, nvJitLink LTO", &pair(TEN));
    if gpu.arch() == "sm_90" {
        let driver = Linker::new()
            .driver_linker(true)
            .input(ObjectCode::ptx(TEN_PTX))
            .input(ObjectCode::cubin(TEN_RDC_SM90.to_vec()));
        time(&gpu, "10 kernels, cuLink PTX + rdc cubin", &driver);
    } else {
        println!("cuLink path not timed: the relocatable cubin is for sm_90");
    }
}

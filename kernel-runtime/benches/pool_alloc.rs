//! Allocating and freeing device memory, one allocation and its free per call, for 256 B,
//! 64 KiB and 16 MiB, in one process on one stream: the runtime's default buffers
//! (`Gpu::alloc`, a `TrackedBuffer` from the device's current pool, dropped), the runtime's
//! buffers from a pool made here (`MemoryPool::alloc`, release threshold `u64::MAX`), raw
//! `cuMemAllocAsync`/`cuMemFreeAsync` (the device's current pool), raw
//! `cuMemAllocFromPoolAsync`/`cuMemFreeAsync` on the same made pool, and raw
//! `cuMemAlloc`/`cuMemFree`.
//!
//! Each path is timed as the host's cost in interleaved bursts of calls (one burst of every
//! path per round, the device drained after each burst outside the timing,
//! `kernel_test_support::bench::interleaved_bursts`); each figure is the median over rounds,
//! and each ratio the median of the per-round ratios. The default pool is measured twice: with
//! the release threshold the device had (normally 0: its unused memory goes back at every
//! synchronisation, so the first allocation of each burst reserves memory again), then with it
//! raised to `u64::MAX`. Lines starting with `BENCH ` are JSON for machines. Without a GPU it
//! prints why and exits successfully (unless `KERNEL_REQUIRE_GPU=1`); on a GPU without memory
//! pools it prints why and exits.
// Every unsafe block here allocates and frees through the raw driver on the bench's context.
#![allow(clippy::undocumented_unsafe_blocks, missing_docs)]

use cuda_kernel_runtime::cudarc::driver::{result, sys};
use cuda_kernel_runtime::{Gpu, MemoryPool, PoolOptions};
use kernel_test_support::bench::{interleaved_bursts, median, paired_ratio, report};

const SIZES: [(usize, &str); 3] = [(256, "256B"), (64 << 10, "64KiB"), (16 << 20, "16MiB")];
/// Allocation and free pairs per timed burst.
const BURST: usize = 256;
const ROUNDS: usize = 31;
const PATHS: [&str; 5] = [
    "runtime_default",
    "runtime_pool",
    "raw_alloc_async",
    "raw_pool_async",
    "raw_alloc",
];

fn main() {
    let Some(gpu) = kernel_test_support::gpu_or_skip() else {
        return;
    };
    let pools = gpu
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)
        .unwrap();
    if pools == 0 {
        println!("skipped: {} has no stream-ordered memory pools", gpu.name());
        return;
    }
    println!(
        "device: {} ({}), driver CUDA {:?}",
        gpu.name(),
        gpu.arch(),
        Gpu::driver_version().unwrap()
    );
    let default = gpu.default_memory_pool().unwrap();
    let pool = MemoryPool::new(&gpu, PoolOptions::new().release_threshold(u64::MAX)).unwrap();
    let found = default.release_threshold().unwrap();
    println!("default pool's release threshold: {found}");
    let mut summary = Vec::new();
    for (size, label) in SIZES {
        summary.push(bench_size(&gpu, &pool, size, label, "as_found"));
    }
    default.set_release_threshold(u64::MAX).unwrap();
    for (size, label) in SIZES {
        summary.push(bench_size(&gpu, &pool, size, label, "default_kept"));
    }
    default.set_release_threshold(found).unwrap();
    let fields: Vec<String> = summary.into_iter().flatten().collect();
    println!("BENCH_SUMMARY {{{}}}", fields.join(","));
}

/// Times every path for `size` bytes; prints each figure and returns the summary's fields.
fn bench_size(gpu: &Gpu, pool: &MemoryPool, size: usize, label: &str, mode: &str) -> Vec<String> {
    gpu.context().bind_to_thread().unwrap();
    let stream = gpu.stream().cu_stream();
    let raw_pool = pool.cu_pool();
    let mut call = |path: usize, _: usize| match path {
        // SAFETY (both): the memory is never read.
        0 => drop(unsafe { gpu.alloc::<u8>(size) }.unwrap()),
        1 => drop(unsafe { pool.alloc::<u8>(gpu, size) }.unwrap()),
        2 => unsafe {
            let p = result::malloc_async(stream, size).unwrap();
            result::free_async(p, stream).unwrap();
        },
        3 => unsafe {
            let p = result::mem_pool::alloc_async(raw_pool, size, stream).unwrap();
            result::free_async(p, stream).unwrap();
        },
        _ => unsafe {
            let p = result::malloc_sync(size).unwrap();
            result::free_sync(p).unwrap();
        },
    };
    // Warm up every path (and let the pools reserve what they keep).
    for path in 0..PATHS.len() {
        for i in 0..BURST {
            call(path, i);
        }
    }
    gpu.synchronize_device().unwrap();
    let times = interleaved_bursts(gpu, ROUNDS, BURST, PATHS.len(), &mut call);
    let section = format!("pool_alloc.{mode}.{label}");
    for (path, name) in PATHS.iter().enumerate() {
        report(
            &format!("{section}.{name}_us"),
            median(times[path].clone()),
            "us/alloc+free",
        );
    }
    let ratios = [
        ("runtime_default_over_raw_alloc_async", 0, 2),
        ("runtime_pool_over_raw_pool_async", 1, 3),
        ("raw_alloc_over_raw_alloc_async", 4, 2),
        ("raw_alloc_over_runtime_pool", 4, 1),
    ];
    ratios
        .iter()
        .map(|&(name, a, b)| {
            let ratio = paired_ratio(&times[a], &times[b]);
            report(&format!("{section}.{name}"), ratio, "x");
            format!("\"{mode}.{label}.{name}\":{ratio:.4}")
        })
        .collect()
}

//! What compressed fatbin entries cost at load: one module (twelve small kernels and CUB
//! block sorts and reductions, every default target) built three ways — every entry
//! compressed (the build's default, nvcc's `--compress-mode=size`, Zstandard), as nvcc
//! stores it alone (`compress = false`: SASS as is, PTX compressed), and every entry LZ4
//! (`-Xfatbin=-compress-all --compress-mode=speed`) — each loaded with
//! `RawModule::load_bytes` and its first kernel launched and synchronised, then the same with
//! `load_eager` (every kernel loaded) between. Each figure is the median of 21 repetitions,
//! the variants alternating; the ratios are to the module nvcc stores alone. Prints `BENCH
//! {json}` lines. Without a GPU it says why and exits successfully (unless
//! `KERNEL_REQUIRE_GPU=1`).
//!
//! With `KERNEL_BENCH_FATBINS=NAME=FILE,NAME=FILE,...` (the first the baseline) it also
//! times fatbins built elsewhere — a large library built three ways with
//! `cuda-kernel-inspect build --out` — loading each and getting the handle of the kernel
//! `KERNEL_BENCH_KERNEL` names (lazy loading loads it then), and with `load_eager`.
//!
//! ```text
//! cargo bench -p kernel-tests --bench compressed_load
//! ```
// Every unsafe block launches `k0`, which writes x[0..n) of a buffer made here.
#![allow(clippy::undocumented_unsafe_blocks, missing_docs)]
// The bench's own switches are read from the environment, not build inputs Cargo must track.
#![allow(clippy::disallowed_methods)]

use std::time::Instant;

use cuda_kernel_runtime::{Gpu, Launch, RawModule, cuda_module, loading_mode};
use kernel_test_support::bench::{median, report};
use kernel_test_support::gpu_or_skip;

/// The module's text, the same for every variant.
macro_rules! library {
    ($name:ident $(, $key:ident = $value:expr)*) => {
        cuda_module! {
            mod $name {
                source = r#"
                    #include <cub/block/block_radix_sort.cuh>
                    #include <cub/block/block_reduce.cuh>
                    #define K(N) extern "C" __global__ void k##N(float* x, int n) { \
                        int i = blockIdx.x * blockDim.x + threadIdx.x; \
                        if (i < n) x[i] = x[i] * (N + 1.5f) + sinf(x[i]) * N; }
                    K(0) K(1) K(2) K(3) K(4) K(5) K(6) K(7) K(8) K(9) K(10) K(11)
                    template <typename T, int B, int I> __global__ void sort(T* keys) {
                        using S = cub::BlockRadixSort<T, B, I>;
                        __shared__ typename S::TempStorage tmp;
                        T k[I];
                        for (int i = 0; i < I; ++i) k[i] = keys[(blockIdx.x * B + threadIdx.x) * I + i];
                        S(tmp).Sort(k);
                        for (int i = 0; i < I; ++i) keys[(blockIdx.x * B + threadIdx.x) * I + i] = k[i];
                    }
                    template <typename T, int B> __global__ void sum(const T* x, T* out) {
                        using R = cub::BlockReduce<T, B>;
                        __shared__ typename R::TempStorage tmp;
                        T s = R(tmp).Sum(x[blockIdx.x * B + threadIdx.x]);
                        if (threadIdx.x == 0) out[blockIdx.x] = s;
                    }
                    template __global__ void sort<float, 128, 4>(float*);
                    template __global__ void sort<unsigned, 256, 8>(unsigned*);
                    template __global__ void sum<double, 256>(const double*, double*);
                "#;
                $($key = $value;)*
            }
        }
    };
}

library!(size);
library!(nvcc_alone, compress = false);
library!(
    lz4,
    flags = ["-Xfatbin=-compress-all", "--compress-mode=speed"]
);

const REPS: usize = 21;

fn us(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e6
}

/// Load + first launch (lazy), and load + load_eager + first launch, in microseconds.
fn once(gpu: &Gpu, image: &[u8], x: &mut cuda_kernel_runtime::TrackedBuffer<f32>) -> (f64, f64) {
    let cfg = Launch::for_num_elems(1024);
    let t = Instant::now();
    let m = RawModule::load_bytes(gpu, image).unwrap();
    unsafe {
        m.kernel("k0")
            .unwrap()
            .launch(&cfg, (&mut *x, 1024i32))
            .unwrap()
    };
    gpu.synchronize().unwrap();
    let lazy = us(t);
    drop(m);
    let t = Instant::now();
    let m = RawModule::load_bytes(gpu, image).unwrap();
    m.load_eager().unwrap();
    unsafe {
        m.kernel("k0")
            .unwrap()
            .launch(&cfg, (&mut *x, 1024i32))
            .unwrap()
    };
    gpu.synchronize().unwrap();
    let eager = us(t);
    drop(m);
    (lazy, eager)
}

/// Load + the kernel's handle, and load + load_eager + the handle, in microseconds.
fn once_named(gpu: &Gpu, image: &[u8], kernel: &str) -> (f64, f64) {
    let t = Instant::now();
    let m = RawModule::load_bytes(gpu, image).unwrap();
    m.kernel(kernel).unwrap();
    let lazy = us(t);
    drop(m);
    let t = Instant::now();
    let m = RawModule::load_bytes(gpu, image).unwrap();
    m.load_eager().unwrap();
    m.kernel(kernel).unwrap();
    let eager = us(t);
    drop(m);
    (lazy, eager)
}

/// The fatbins `KERNEL_BENCH_FATBINS` names, timed as [`once_named`] says.
fn files(gpu: &Gpu, list: &str) {
    let kernel = std::env::var("KERNEL_BENCH_KERNEL").unwrap_or_else(|_| "k0".into());
    let images: Vec<(String, Vec<u8>)> = list
        .split(',')
        .filter_map(|item| item.split_once('='))
        .map(|(name, file)| {
            let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{file}: {e}"));
            (name.to_owned(), bytes)
        })
        .collect();
    let mut samples = vec![(Vec::new(), Vec::new()); images.len()];
    for round in 0..=REPS {
        for (i, (_, image)) in images.iter().enumerate() {
            let (lazy, eager) = once_named(gpu, image, &kernel);
            if round > 0 {
                samples[i].0.push(lazy);
                samples[i].1.push(eager);
            }
        }
    }
    let (base_lazy, base_eager) = (median(samples[0].0.clone()), median(samples[0].1.clone()));
    for ((name, image), (lazy, eager)) in images.iter().zip(samples) {
        report(
            &format!("{name}: image"),
            image.len() as f64 / 1048576.0,
            "MiB",
        );
        let (lazy, eager) = (median(lazy), median(eager));
        report(&format!("{name}: load + `{kernel}`"), lazy, "us");
        report(
            &format!("{name}: load + `{kernel}`, ratio"),
            lazy / base_lazy,
            "x",
        );
        report(
            &format!("{name}: load + load_eager + `{kernel}`"),
            eager,
            "us",
        );
        report(&format!("{name}: eager, ratio"), eager / base_eager, "x");
    }
}

fn main() {
    let Some(gpu) = gpu_or_skip() else { return };
    if let Ok(list) = std::env::var("KERNEL_BENCH_FATBINS") {
        files(&gpu, &list);
    }
    println!("loading mode: {:?}", loading_mode().unwrap());
    let variants = [
        ("nvcc alone", &nvcc_alone::METADATA),
        ("every entry zstd (default)", &size::METADATA),
        ("every entry lz4", &lz4::METADATA),
    ];
    let mut x = gpu.zeros::<f32>(1024).unwrap();
    let mut samples = vec![(Vec::new(), Vec::new()); variants.len()];
    for round in 0..=REPS {
        for (i, (_, spec)) in variants.iter().enumerate() {
            let (lazy, eager) = once(&gpu, spec.image.unwrap(), &mut x);
            // The first round warms the driver and the context.
            if round > 0 {
                samples[i].0.push(lazy);
                samples[i].1.push(eager);
            }
        }
    }
    let base = samples[0].clone();
    let (base_lazy, base_eager) = (median(base.0), median(base.1));
    for ((name, spec), (lazy, eager)) in variants.iter().zip(samples) {
        let (c, n) = spec.compressed_entries().unwrap();
        let bytes = spec.image.unwrap().len() as f64;
        report(
            &format!("{name}: image ({c} of {n} compressed)"),
            bytes / 1024.0,
            "KiB",
        );
        let (lazy, eager) = (median(lazy), median(eager));
        report(&format!("{name}: load + first launch"), lazy, "us");
        report(
            &format!("{name}: load + first launch, ratio"),
            lazy / base_lazy,
            "x",
        );
        report(
            &format!("{name}: load + load_eager + first launch"),
            eager,
            "us",
        );
        report(&format!("{name}: eager, ratio"), eager / base_eager, "x");
    }
}

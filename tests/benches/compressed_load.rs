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
//! times fatbins built elsewhere — a large library built several ways with
//! `cuda-kernel-inspect build --out` — loading each and getting the handle of the kernel
//! `KERNEL_BENCH_KERNEL` names (lazy loading loads it then), and with `load_eager`. A
//! module of several files holds one container per file, one after another: each is loaded
//! as a module of its own, as the runtime loads such a module, and the kernel is looked up
//! in the one that holds it. The same containers are then loaded side by side, each on a
//! thread of its own, which the driver makes slower than one after another.
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

/// How [`timed_load`] loads a set of images.
#[derive(Clone, Copy)]
enum Way {
    /// One after another, as the runtime loads a module of several files; each then
    /// `load_eager` when `eager`.
    InTurn { eager: bool },
    /// Each on a thread of its own, all at once.
    SideBySide,
}

/// One load of each of `images`, the `way` it says, and `then` on the modules, in
/// microseconds.
fn timed_load(gpu: &Gpu, images: &[&[u8]], way: Way, then: &mut dyn FnMut(&[RawModule])) -> f64 {
    let t = Instant::now();
    let modules: Vec<RawModule> = match way {
        Way::InTurn { eager } => images
            .iter()
            .map(|image| {
                let m = RawModule::load_bytes(gpu, image).unwrap();
                if eager {
                    m.load_eager().unwrap();
                }
                m
            })
            .collect(),
        Way::SideBySide => std::thread::scope(|s| {
            let loads: Vec<_> = images
                .iter()
                .map(|image| s.spawn(move || RawModule::load_bytes(gpu, image).unwrap()))
                .collect();
            loads.into_iter().map(|l| l.join().unwrap()).collect()
        }),
    };
    then(&modules);
    let took = us(t);
    drop(modules);
    took
}

/// The median time of each of `count` items over `REPS` rounds, the items alternating within
/// a round; a first round before them warms the driver and the context.
fn rounds(count: usize, mut once: impl FnMut(usize) -> f64) -> Vec<f64> {
    let mut samples = vec![Vec::new(); count];
    for round in 0..=REPS {
        for (i, sample) in samples.iter_mut().enumerate() {
            let t = once(i);
            if round > 0 {
                sample.push(t);
            }
        }
    }
    samples.into_iter().map(median).collect()
}

/// The medians of `(lazy, eager)` times of each of `count` items (see [`rounds`]).
fn medians(count: usize, mut once: impl FnMut(usize, bool) -> f64) -> Vec<(f64, f64)> {
    let times = rounds(2 * count, |j| once(j / 2, j % 2 == 1));
    times.chunks(2).map(|p| (p[0], p[1])).collect()
}

/// The four lines of one item's times (`what`: what follows the load), the ratios to `base`'s.
fn report_times(name: &str, what: &str, (lazy, eager): (f64, f64), base: (f64, f64)) {
    report(&format!("{name}: load + {what}"), lazy, "us");
    report(&format!("{name}: load + {what}, ratio"), lazy / base.0, "x");
    report(&format!("{name}: load + load_eager + {what}"), eager, "us");
    report(&format!("{name}: eager, ratio"), eager / base.1, "x");
}

/// The fatbins `KERNEL_BENCH_FATBINS` names, each loaded and then asked for the handle of
/// the kernel `KERNEL_BENCH_KERNEL` names.
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
    let parts: Vec<Vec<&[u8]>> = images
        .iter()
        .map(|(_, bytes)| {
            cuda_kernel_objects::find_containers(bytes)
                .into_iter()
                .map(|(at, len)| &bytes[at..at + len])
                .collect()
        })
        .collect();
    for ((name, _), p) in images.iter().zip(&parts) {
        println!("{name}: {} container(s), each loaded", p.len());
    }
    let times = medians(images.len(), |i, eager| {
        timed_load(gpu, &parts[i], Way::InTurn { eager }, &mut |modules| {
            assert!(
                modules.iter().any(|m| m.kernel(&kernel).is_ok()),
                "no container holds `{kernel}`"
            );
        })
    });
    // The same loads with each container on a thread of its own (lazy only), in rounds of
    // their own, the images alternating.
    let side_by_side = rounds(images.len(), |i| {
        timed_load(gpu, &parts[i], Way::SideBySide, &mut |modules| {
            assert!(modules.iter().any(|m| m.kernel(&kernel).is_ok()));
        })
    });
    for (((name, image), t), p) in images.iter().zip(&times).zip(side_by_side) {
        report(
            &format!("{name}: image"),
            image.len() as f64 / 1048576.0,
            "MiB",
        );
        report_times(name, &format!("`{kernel}`"), *t, times[0]);
        report(
            &format!("{name}: containers loaded side by side + `{kernel}`"),
            p,
            "us",
        );
        report(
            &format!("{name}: side by side, ratio to {} one by one", images[0].0),
            p / times[0].0,
            "x",
        );
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
    let cfg = Launch::for_num_elems(1024);
    let times = medians(variants.len(), |i, eager| {
        timed_load(
            &gpu,
            &[variants[i].1.image.unwrap()],
            Way::InTurn { eager },
            &mut |m| {
                unsafe {
                    m[0].kernel("k0")
                        .unwrap()
                        .launch(&cfg, (&mut x, 1024i32))
                        .unwrap()
                };
                gpu.synchronize().unwrap();
            },
        )
    });
    for ((name, spec), t) in variants.iter().zip(&times) {
        let (c, n) = spec.compressed_entries().unwrap();
        let bytes = spec.image.unwrap().len() as f64;
        report(
            &format!("{name}: image ({c} of {n} compressed)"),
            bytes / 1024.0,
            "KiB",
        );
        report_times(name, "first launch", *t, times[0]);
    }
}

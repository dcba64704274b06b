//! What lazy module loading changes for the first launch: a module of 12 kernels loaded with
//! `RawModule::load_bytes` and its first kernel launched and synchronised, against the same
//! with `RawModule::load_eager` between the load and the launch. Each figure is the median of 15
//! repetitions, the two paths alternating. Prints `BENCH {json}` lines and the driver's mode
//! (`CUDA_MODULE_LOADING` sets it). Without a GPU it says why and exits successfully (unless
//! `KERNEL_REQUIRE_GPU=1`).
//!
//! ```text
//! cargo bench -p kernel-tests --bench first_launch
//! ```
// Every unsafe block launches `k0`, which writes x[0..n) of a buffer made here.
#![allow(clippy::undocumented_unsafe_blocks, missing_docs)]

use std::time::Instant;

use cuda_kernel_runtime::{Launch, RawModule, cuda_module, loading_mode};
use kernel_test_support::bench::{median, report};
use kernel_test_support::gpu_or_skip;

cuda_module! {
    /// Twelve small kernels, so that loading everything costs more than loading one.
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

fn us(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e6
}

fn main() {
    let Some(gpu) = gpu_or_skip() else { return };
    println!("loading mode: {:?}", loading_mode().unwrap());
    let image = twelve::METADATA.image.expect("built with device code");
    let mut x = gpu.zeros::<f32>(1024).unwrap();
    let cfg = Launch::for_num_elems(1024);
    // Warm the driver and the context.
    let warm = RawModule::load_bytes(&gpu, image).unwrap();
    unsafe {
        warm.kernel("k0")
            .unwrap()
            .launch(&cfg, (&mut x, 1024i32))
            .unwrap()
    };
    gpu.synchronize().unwrap();
    drop(warm);

    let (mut load, mut first, mut eager_load, mut eager_first, mut second) =
        (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..REPS {
        let t = Instant::now();
        let m = RawModule::load_bytes(&gpu, image).unwrap();
        load.push(us(t));
        let t = Instant::now();
        let k = m.kernel("k0").unwrap();
        unsafe { k.launch(&cfg, (&mut x, 1024i32)).unwrap() };
        gpu.synchronize().unwrap();
        first.push(us(t));
        let t = Instant::now();
        unsafe { k.launch(&cfg, (&mut x, 1024i32)).unwrap() };
        gpu.synchronize().unwrap();
        second.push(us(t));
        drop((k, m));

        let t = Instant::now();
        let m = RawModule::load_bytes(&gpu, image).unwrap();
        assert_eq!(m.load_eager().unwrap(), 12);
        eager_load.push(us(t));
        let t = Instant::now();
        let k = m.kernel("k0").unwrap();
        unsafe { k.launch(&cfg, (&mut x, 1024i32)).unwrap() };
        gpu.synchronize().unwrap();
        eager_first.push(us(t));
        drop((k, m));
    }
    report("module load (12 kernels)", median(load), "us");
    report("first launch + sync after load", median(first), "us");
    report("module load + load_eager", median(eager_load), "us");
    report(
        "first launch + sync after load_eager",
        median(eager_first),
        "us",
    );
    report("second launch + sync", median(second), "us");
}

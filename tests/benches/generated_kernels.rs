//! Generated kernels at 2^26 f32 elements against the device's own copy bandwidth (measured
//! here, `cuMemcpyDtoDAsync`) and, in the same GPU call, CUB and CuPy (`tests/bench/
//! generated_anchors.{cu,py}`): elementwise bandwidth, reduction and scan time. GPU time of
//! 20 back-to-back calls between two events, fastest of 7. Prints `BENCH {json}` lines.
//! Without a GPU it says why and exits successfully (unless `KERNEL_REQUIRE_GPU=1`).
//!
//! ```text
//! cargo bench -p kernel-tests --bench generated_kernels
//! ```
#![allow(missing_docs)]

use cuda_kernel_runtime::{Error, Gpu, elementwise, reduction, scan};
use kernel_test_support::bench::{fastest, report};
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};

elementwise! {
    mod ew {
        pub fn scale(a: f32, x: &[f32], y: &mut [f32]) = "y[i] = a * x[i]";
        pub fn axpy(a: f32, x: &[f32], y: &mut [f32]) = "y[i] = a * x[i] + y[i]";
    }
}

reduction! {
    mod red {
        pub fn sum(x: &[f32]) -> f32 { map = "x[i]"; reduce = "a + b"; identity = "0"; }
    }
}

scan! {
    mod sc {
        pub fn cumsum(x: &[f32], y: &mut [f32]) { op = "a + b"; identity = "0"; }
    }
}

const N: usize = 1 << 26;
const CALLS: u32 = 20;
const REPS: usize = 7;

/// Microseconds per call: GPU time of `CALLS` calls between events, fastest of `REPS`.
fn gpu_us(gpu: &Gpu, f: &mut dyn FnMut() -> Result<(), Error>) -> Result<f64, Error> {
    f()?;
    let mut samples = Vec::new();
    for _ in 0..REPS {
        let ((), took) = gpu.time(|| {
            for _ in 0..CALLS {
                f()?;
            }
            Ok(())
        })?;
        samples.push(took.as_secs_f64() * 1e6 / f64::from(CALLS));
    }
    Ok(fastest(&samples))
}

fn main() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let xs = Rng::with_seed(3).nonzero_f32s(N);
    let x = gpu.upload(&xs)?;
    let mut y = gpu.upload(&xs)?;
    let mut out = gpu.zeros::<f32>(1)?;
    let bytes = (N * 4) as f64;
    let copy = gpu_us(&gpu, &mut || gpu.copy(&x, &mut y))?;
    let copy_gbs = 2.0 * bytes / copy / 1e3;
    report("generated.copy_dtod_gbs", copy_gbs, "GB/s");

    let e = ew::load(&gpu)?;
    let scale = gpu_us(&gpu, &mut || e.scale(2.0, &x, &mut y))?;
    let scale_gbs = 2.0 * bytes / scale / 1e3;
    report("generated.elementwise_scale_gbs", scale_gbs, "GB/s");
    report(
        "generated.elementwise_scale_vs_copy",
        scale_gbs / copy_gbs,
        "ratio",
    );
    let axpy = gpu_us(&gpu, &mut || e.axpy(2.0, &x, &mut y))?;
    let axpy_gbs = 3.0 * bytes / axpy / 1e3;
    report("generated.elementwise_axpy_gbs", axpy_gbs, "GB/s");
    report(
        "generated.elementwise_axpy_vs_copy",
        axpy_gbs / copy_gbs,
        "ratio",
    );

    let r = red::load(&gpu)?;
    let sum = gpu_us(&gpu, &mut || r.sum_into(&x, &mut out))?;
    report("generated.reduce_sum_us", sum, "us");
    report("generated.reduce_sum_gbs", bytes / sum / 1e3, "GB/s");

    let s = sc::load(&gpu)?;
    let scan = gpu_us(&gpu, &mut || s.cumsum(&x, &mut y))?;
    report("generated.scan_inclusive_us", scan, "us");
    report(
        "generated.scan_inclusive_gbs",
        2.0 * bytes / scan / 1e3,
        "GB/s",
    );
    Ok(())
}

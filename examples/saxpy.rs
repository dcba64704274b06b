//! `y = a*x + y` on 16M floats: the quick-start example.
//!
//! Without a GPU it prints what the binary embeds and why it cannot run, and exits with
//! status 2.

use std::process::ExitCode;

use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded};
use kernel_runtime::{Error, Gpu, LaunchConfig, cuda_module};

cuda_module! {
    /// Single-precision vector kernels.
    mod vecmath {
        source = r#"
            // y = a*x + y for the first n elements.
            extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * x[i] + y[i];
            }
        "#;
        // What this example relies on, checked against the CUDA declaration at compile time.
        fn saxpy(a: f32, x: &[f32], y: &mut [f32], n: i32);
    }
}

const N: usize = 1 << 24;

fn main() -> ExitCode {
    kernel_examples::run("saxpy", &[embedded!(vecmath)], saxpy)
}

fn saxpy(gpu: &Gpu) -> Result<Report, Error> {
    let mut rng = Rng::with_seed(1);
    let a = rng.nonzero_f32();
    let (xs, ys) = (rng.nonzero_f32s(N), rng.nonzero_f32s(N));

    let k = vecmath::load(gpu)?;
    let x = gpu.upload(&xs)?;
    let mut y = gpu.upload(&ys)?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    // SAFETY: `saxpy` touches x[i] and y[i] for i < n only, and both buffers hold n elements.
    let ((), took) = gpu.time(|| unsafe { k.saxpy(&cfg, a, &x, &mut y, N as i32) })?;
    let got = gpu.download(&y)?;

    // A fused multiply-add on both sides (nvcc contracts `a * x + y`); one rounding of slack in
    // case it does not.
    let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| a.mul_add(*x, *y)).collect();
    let bytes = 3 * N * size_of::<f32>();
    let mut report = Report::new("saxpy", gpu);
    report
        .fact("elements", N)
        .time("kernel", took, Some((bytes as f64 / 1e9, "GB/s")))
        .check("y", compare(&got, &want, Tolerance::new(1e-6, 1e-6)));
    Ok(report)
}

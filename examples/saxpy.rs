//! `y = a*x + y` on 16M floats: the quick-start example. It needs nothing but
//! `cuda-kernel-runtime`, as a program of your own would.
//!
//! Exit status: 0 when the result matches the CPU's, 1 when it does not or a call fails, 2
//! when no GPU can be opened (after printing what the binary embeds).

use std::process::ExitCode;

use cuda_kernel_runtime::{Error, Gpu, Launch, cuda_module};

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
    let meta = &vecmath::METADATA;
    println!(
        "module `{}` embeds {:?} (CUDA {})",
        meta.name, meta.archs, meta.toolkit
    );
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("not run, no GPU is usable: {e}");
            return ExitCode::from(2);
        }
    };
    match saxpy(&gpu) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("saxpy failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the kernel and compares with the CPU; `Ok(false)` when they differ.
fn saxpy(gpu: &Gpu) -> Result<bool, Error> {
    let a = 1.75f32;
    let (xs, ys) = (values(N, 1), values(N, 2));

    let k = vecmath::load(gpu)?;
    let x = gpu.upload(&xs)?;
    let mut y = gpu.upload(&ys)?;
    let cfg = Launch::for_num_elems(N as u32);
    // SAFETY: `saxpy` touches x[i] and y[i] for i < n only, and both buffers hold n elements.
    let ((), took) = gpu.time(|| unsafe { k.saxpy(&cfg, a, &x, &mut y, N as i32) })?;
    let got = gpu.download(&y)?;

    // nvcc contracts `a * x + y` into a fused multiply-add: so does the reference.
    let bad = xs
        .iter()
        .zip(&ys)
        .zip(&got)
        .filter(|((x, y), g)| (a.mul_add(**x, **y) - **g).abs() > 1e-6 * g.abs().max(1.0))
        .count();
    let gbps = (3 * N * size_of::<f32>()) as f64 / took.as_secs_f64() / 1e9;
    println!(
        "{} ({}): {N} elements in {:.3} ms ({gbps:.0} GB/s); {bad} mismatches",
        gpu.name(),
        gpu.arch(),
        took.as_secs_f64() * 1e3
    );
    Ok(bad == 0)
}

/// `n` reproducible, non-zero values in [-2, -0.25] ∪ [0.25, 2].
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let unit = (state >> 40) as f32 / (1u64 << 24) as f32; // [0, 1)
            let magnitude = 0.25 + 1.75 * unit;
            if state & 1 == 0 {
                magnitude
            } else {
                -magnitude
            }
        })
        .collect()
}

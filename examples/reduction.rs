//! Sum of 16M floats in two passes: each block reduces with warp shuffles, then one shared
//! slot per warp; a second launch of the same kernel reduces the per-block partial sums.
//!
//! Then the same sum from one line, `reduction!`, which writes that kernel (with vector
//! loads and a fixed order of operations), checks the slice's length and sizes the launches
//! itself: both are timed on the same data and checked against the CPU.

use std::process::ExitCode;

use cuda_kernel_runtime::{Error, Gpu, Launch, cuda_module, reduction};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded};

cuda_module! {
    /// Block-wide sums.
    mod reduce {
        source = r#"
            #define BLOCK 256

            // Sum over the 32 lanes of a warp; lane 0 ends with the total.
            __device__ float warp_sum(float v) {
                for (int offset = 16; offset > 0; offset /= 2)
                    v += __shfl_down_sync(0xffffffffu, v, offset);
                return v;
            }

            // partial[blockIdx.x] = sum of the x[i] this block visits (grid-stride over n).
            // Launch with BLOCK threads per block.
            extern "C" __global__ void __launch_bounds__(BLOCK)
            block_sum(const float* x, float* partial, int n) {
                __shared__ float warp_sums[BLOCK / 32];
                float v = 0.0f;
                for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
                    v += x[i];
                v = warp_sum(v);
                int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
                if (lane == 0) warp_sums[warp] = v;
                __syncthreads();
                if (warp == 0) {
                    v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
                    v = warp_sum(v);
                    if (lane == 0) partial[blockIdx.x] = v;
                }
            }
        "#;
        fn block_sum(x: &[f32], partial: &mut [f32], n: i32);
    }
}

reduction! {
    /// The same sum, generated.
    mod generated {
        pub fn sum(x: &[f32]) -> f32 { map = "x[i]"; reduce = "a + b"; identity = "0"; }
    }
}

const N: usize = (1 << 24) + 12_345;
const REPS: u32 = 20;
const BLOCK: u32 = 256;
const BLOCKS: u32 = 1024;

fn main() -> ExitCode {
    kernel_examples::run(
        "reduction",
        &[embedded!(reduce), embedded!(generated)],
        reduction,
    )
}

fn reduction(gpu: &Gpu) -> Result<Report, Error> {
    let xs = Rng::with_seed(2).nonzero_f32s(N);
    let k = reduce::load(gpu)?;
    let x = gpu.upload(&xs)?;
    let mut partial = gpu.zeros::<f32>(BLOCKS as usize)?;
    let mut total = gpu.zeros::<f32>(1)?;
    let ((), took) = gpu.time(|| {
        for _ in 0..REPS {
            // SAFETY: block_sum reads x[i] for i < n and writes partial[blockIdx.x]: x holds N
            // elements, partial one per block of the first launch, total one for the second.
            unsafe {
                k.block_sum(&Launch::new(BLOCKS, BLOCK), &x, &mut partial, N as i32)?;
                k.block_sum(&Launch::new(1, BLOCK), &partial, &mut total, BLOCKS as i32)?;
            }
        }
        Ok(())
    })?;
    let got = gpu.download(&total)?;
    let g = generated::load(gpu)?;
    let mut generated_total = gpu.zeros::<f32>(1)?;
    let ((), generated_took) = gpu.time(|| {
        for _ in 0..REPS {
            g.sum_into(&x, &mut generated_total)?;
        }
        Ok(())
    })?;
    let generated_got = f64::from(gpu.download(&generated_total)?[0]);
    let (took, generated_took) = (took / REPS, generated_took / REPS);

    // Reference in double precision. The float result differs by roundings bounded by a
    // small fraction of the sum of magnitudes; the tolerance stays far below the smallest
    // element (0.25), so a missed or doubled element fails.
    let want = xs.iter().map(|&v| f64::from(v)).sum::<f64>();
    let magnitude = xs.iter().map(|&v| f64::from(v.abs())).sum::<f64>();
    let got = got.iter().map(|&v| f64::from(v)).collect::<Vec<_>>();
    let mut report = Report::new("reduction", gpu);
    report
        .fact("elements", N)
        .fact(
            "launches",
            format!("{BLOCKS} x {BLOCK} threads, then 1 x {BLOCK}"),
        )
        .fact("sum", format!("{:.6} (CPU, f64: {want:.6})", got[0]))
        .time(
            "kernels",
            took,
            Some(((N * size_of::<f32>()) as f64 / 1e9, "GB/s")),
        )
        .time(
            "generated (reduction!)",
            generated_took,
            Some(((N * size_of::<f32>()) as f64 / 1e9, "GB/s")),
        )
        .fact(
            "generated / hand-written time",
            format!("{:.2}", generated_took.as_secs_f64() / took.as_secs_f64()),
        )
        .check(
            "sum",
            compare(&got, &[want], Tolerance::new(5e-9 * magnitude, 0.0)),
        )
        .check(
            "generated sum",
            compare(
                &[generated_got],
                &[want],
                Tolerance::new(5e-9 * magnitude, 0.0),
            ),
        );
    Ok(report)
}

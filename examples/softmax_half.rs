//! Row-wise softmax of a `__half` matrix: loads and stores in half precision, arithmetic in
//! float, block-wide max and sum through warp shuffles and shared memory.

use std::process::ExitCode;

use cuda_kernel_runtime::{Error, Gpu, Launch, cuda_module, f16};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded};

cuda_module! {
    /// Softmax in half precision.
    mod softmax {
        source = r#"
            #include <cuda_fp16.h>
            #define BLOCK 256

            __device__ float warp_max(float v) {
                for (int offset = 16; offset > 0; offset /= 2)
                    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
                return v;
            }

            __device__ float warp_sum(float v) {
                for (int offset = 16; offset > 0; offset /= 2)
                    v += __shfl_xor_sync(0xffffffffu, v, offset);
                return v;
            }

            // The maximum (is_max) or the sum of v over the block, returned to every thread.
            __device__ float block_reduce(float v, bool is_max, float* scratch) {
                int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
                v = is_max ? warp_max(v) : warp_sum(v);
                if (lane == 0) scratch[warp] = v;
                __syncthreads();
                float identity = is_max ? -INFINITY : 0.0f;
                v = lane < blockDim.x / 32 ? scratch[lane] : identity;
                v = is_max ? warp_max(v) : warp_sum(v);
                __syncthreads();  // scratch is reused by the next call
                return v;
            }

            // y[r, :] = softmax(x[r, :]) for each of the rows; one block of BLOCK threads per row.
            extern "C" __global__ void __launch_bounds__(BLOCK)
            softmax_rows(const __half* x, __half* y, int rows, int cols) {
                __shared__ float scratch[BLOCK / 32];
                int row = blockIdx.x;
                if (row >= rows) return;
                const __half* xr = x + (size_t)row * cols;
                __half* yr = y + (size_t)row * cols;

                float m = -INFINITY;
                for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, __half2float(xr[c]));
                m = block_reduce(m, true, scratch);

                float s = 0.0f;
                for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(__half2float(xr[c]) - m);
                float inv = 1.0f / block_reduce(s, false, scratch);

                for (int c = threadIdx.x; c < cols; c += blockDim.x)
                    yr[c] = __float2half(expf(__half2float(xr[c]) - m) * inv);
            }
        "#;
        fn softmax_rows(x: &[f16], y: &mut [f16], rows: i32, cols: i32);
    }
}

const ROWS: usize = 4096;
const COLS: usize = 1000;

fn main() -> ExitCode {
    kernel_examples::run("softmax_half", &[embedded!(softmax)], softmax_half)
}

fn softmax_half(gpu: &Gpu) -> Result<Report, Error> {
    let mut rng = Rng::with_seed(4);
    // Logits in ±[1, 8): wide enough that the max subtraction matters.
    let xs: Vec<f16> = (0..ROWS * COLS)
        .map(|_| f16::from_f64(4.0 * rng.nonzero_f64()))
        .collect();
    let k = softmax::load(gpu)?;
    let x = gpu.upload(&xs)?;
    let mut y = gpu.zeros::<f16>(ROWS * COLS)?;
    let cfg = Launch::new(ROWS as u32, 256);
    // SAFETY: block r touches row r < rows of x and y only, columns < cols; both buffers hold
    // rows * cols halves.
    let ((), took) =
        gpu.time(|| unsafe { k.softmax_rows(&cfg, &x, &mut y, ROWS as i32, COLS as i32) })?;
    let got: Vec<f64> = gpu.download(&y)?.into_iter().map(f64::from).collect();

    let want = reference(&xs);
    let row_sums: Vec<f64> = got.chunks(COLS).map(|r| r.iter().sum()).collect();
    let bytes = 2 * ROWS * COLS * size_of::<f16>();
    let mut report = Report::new("softmax_half", gpu);
    report
        .fact("shape", format!("{ROWS} rows x {COLS} columns, __half"))
        .time("kernel", took, Some((bytes as f64 / 1e9, "GB/s")))
        // One rounding to half (relative 2^-11) on top of float arithmetic; tiny values are
        // half subnormals, exact only to 2^-24.
        .check("y", compare(&got, &want, Tolerance::new(1e-7, 2e-3)))
        .check(
            "row sums",
            compare(&row_sums, &vec![1.0; ROWS], Tolerance::new(5e-3, 0.0)),
        );
    Ok(report)
}

/// Softmax of each row, in double precision from the same half inputs.
fn reference(xs: &[f16]) -> Vec<f64> {
    let mut out = Vec::with_capacity(xs.len());
    for row in xs.chunks(COLS) {
        let row: Vec<f64> = row.iter().map(|&v| f64::from(v)).collect();
        let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
        out.extend(row.iter().map(|v| (v - m).exp() / s));
    }
    out
}

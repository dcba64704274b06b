//! `C = A * B` in single precision: a shared-memory tiled kernel against a naive one, timed
//! with device events (GFLOP/s), checked against a CPU reference on sampled rows.

use std::process::ExitCode;

use cuda_kernel_runtime::{Error, Gpu, Launch, cuda_module};
use gemm::{ROWS, TILE};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded, mean_time};

cuda_module! {
    /// Matrix products, row-major: a is m x k, b is k x n, c is m x n.
    mod gemm {
        source = r#"
            #define TILE 32
            #define ROWS 8   // a block is TILE x ROWS threads; each computes TILE / ROWS outputs

            // One thread per element of c.
            extern "C" __global__ void matmul_naive(const float* a, const float* b, float* c,
                                                    int m, int n, int k) {
                int row = blockIdx.y * blockDim.y + threadIdx.y;
                int col = blockIdx.x * blockDim.x + threadIdx.x;
                if (row >= m || col >= n) return;
                float acc = 0.0f;
                for (int e = 0; e < k; ++e) acc += a[row * k + e] * b[e * n + col];
                c[row * n + col] = acc;
            }

            // TILE x TILE tiles of a and b staged in shared memory; launch with (TILE, ROWS)
            // threads and a (ceil(n / TILE), ceil(m / TILE)) grid.
            extern "C" __global__ void __launch_bounds__(TILE * ROWS)
            matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k) {
                __shared__ float as[TILE][TILE];
                __shared__ float bs[TILE][TILE];
                int tx = threadIdx.x, ty = threadIdx.y;
                int row0 = blockIdx.y * TILE, col = blockIdx.x * TILE + tx;
                float acc[TILE / ROWS] = {0.0f};
                for (int t = 0; t < k; t += TILE) {
                    for (int r = ty; r < TILE; r += ROWS) {
                        int ar = row0 + r, ac = t + tx, br = t + r;
                        as[r][tx] = (ar < m && ac < k) ? a[ar * k + ac] : 0.0f;
                        bs[r][tx] = (br < k && col < n) ? b[br * n + col] : 0.0f;
                    }
                    __syncthreads();
                    #pragma unroll
                    for (int e = 0; e < TILE; ++e) {
                        float bv = bs[e][tx];
                        #pragma unroll
                        for (int j = 0; j < TILE / ROWS; ++j) acc[j] += as[ty + j * ROWS][e] * bv;
                    }
                    __syncthreads();
                }
                for (int j = 0; j < TILE / ROWS; ++j) {
                    int row = row0 + ty + j * ROWS;
                    if (row < m && col < n) c[row * n + col] = acc[j];
                }
            }
        "#;
        // The tile shape the launch needs, as the kernel's own `#define`s give it.
        constants = ["TILE: u32", "ROWS: u32"];
        fn matmul_naive(a: &[f32], b: &[f32], c: &mut [f32], m: i32, n: i32, k: i32);
        fn matmul_tiled(a: &[f32], b: &[f32], c: &mut [f32], m: i32, n: i32, k: i32);
    }
}

// Not multiples of the tile, so the edge handling is exercised.
const M: usize = 2000;
const N: usize = 1800;
const K: usize = 1900;
const REPEATS: u32 = 5;
const SAMPLED_ROWS: usize = 24;

fn main() -> ExitCode {
    kernel_examples::run("matmul", &[embedded!(gemm)], matmul)
}

fn matmul(gpu: &Gpu) -> Result<Report, Error> {
    let mut rng = Rng::with_seed(3);
    let (a_host, b_host) = (rng.nonzero_f32s(M * K), rng.nonzero_f32s(K * N));
    let k = gemm::load(gpu)?;
    let a = gpu.upload(&a_host)?;
    let b = gpu.upload(&b_host)?;
    let mut c_naive = gpu.zeros::<f32>(M * N)?;
    let mut c_tiled = gpu.zeros::<f32>(M * N)?;
    let (m, n, kk) = (M as i32, N as i32, K as i32);

    let naive_cfg = Launch::new(((N as u32).div_ceil(16), (M as u32).div_ceil(16)), (16, 16));
    let tiled_cfg = Launch::new(
        ((N as u32).div_ceil(TILE), (M as u32).div_ceil(TILE)),
        (TILE, ROWS),
    );
    // The kernels read a[0..m*k] and b[0..k*n] and write c[0..m*n] only, guarded by m, n
    // and k; the buffers hold exactly that many elements.
    let naive = mean_time(gpu, REPEATS, || {
        // SAFETY: see above.
        unsafe { k.matmul_naive(&naive_cfg, &a, &b, &mut c_naive, m, n, kk) }
    })?;
    let tiled = mean_time(gpu, REPEATS, || {
        // SAFETY: see above.
        unsafe { k.matmul_tiled(&tiled_cfg, &a, &b, &mut c_tiled, m, n, kk) }
    })?;

    let (got_naive, got_tiled) = (gpu.download(&c_naive)?, gpu.download(&c_tiled)?);
    let rows: Vec<usize> = (0..SAMPLED_ROWS).map(|_| rng.usize(..M)).collect();
    let want = reference_rows(&a_host, &b_host, &rows);
    let pick = |c: &[f32]| -> Vec<f32> {
        rows.iter()
            .flat_map(|&r| c[r * N..(r + 1) * N].iter().copied())
            .collect()
    };
    // Sums of K products of magnitude < 4, rounded in float in different orders.
    let tol = Tolerance::new(5e-3, 1e-4);
    let flop = 2.0 * (M * N * K) as f64;
    let mut report = Report::new("matmul", gpu);
    report
        .fact("shape", format!("{M} x {K} times {K} x {N}, f32"))
        .time("naive", naive, Some((flop / 1e9, "GFLOP/s")))
        .time("tiled", tiled, Some((flop / 1e9, "GFLOP/s")))
        .fact(
            "speed-up",
            format!("{:.2}x", naive.as_secs_f64() / tiled.as_secs_f64()),
        )
        .check(
            "naive (sampled rows)",
            compare(&pick(&got_naive), &want, tol),
        )
        .check(
            "tiled (sampled rows)",
            compare(&pick(&got_tiled), &want, tol),
        )
        .check("tiled vs naive (all)", compare(&got_tiled, &got_naive, tol));
    Ok(report)
}

/// The given rows of `a * b`, accumulated in double precision.
fn reference_rows(a: &[f32], b: &[f32], rows: &[usize]) -> Vec<f32> {
    let mut out = Vec::with_capacity(rows.len() * N);
    for &r in rows {
        let mut acc = vec![0.0f64; N];
        for (e, &av) in a[r * K..(r + 1) * K].iter().enumerate() {
            for (o, &bv) in acc.iter_mut().zip(&b[e * N..(e + 1) * N]) {
                *o += f64::from(av) * f64::from(bv);
            }
        }
        out.extend(acc.into_iter().map(|v| v as f32));
    }
    out
}

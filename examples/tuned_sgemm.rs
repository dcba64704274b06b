//! A tiled SGEMM tuned over nine declared variants: one template kernel (a `TILE` x `TILE`
//! block of C per thread block, `BK`-deep slabs of A and B staged in shared memory, a `T` x
//! `T` micro-tile of C per thread) and a `tune` item listing the variants, whose launch shape
//! (threads a block, a two-dimensional grid) the item's rules give. The generated
//! `sgemm_tuned((m, n, k), Idempotent, ...)` times the nine on the first call for each shape
//! and launches the fastest after that; the kernel writes C from A and B alone, so the
//! timing runs on the call's own buffers.
//!
//! For each of five shapes it prints the variant chosen and the mean time of a settled call
//! with its TFLOP/s, and checks 256 entries of C, picked at random, against double-precision
//! dot products on the CPU.
//!
//! ```text
//! cargo run --release -p kernel-examples --example tuned_sgemm
//! ```

use std::process::ExitCode;

use cuda_kernel_runtime::tune::Idempotent;
use cuda_kernel_runtime::{Error, Gpu, cuda_module};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded, mean_time};

cuda_module! {
    /// C = A * B for row-major `float` matrices, tuned over its tile shapes.
    mod gemm {
        source = r#"
            // C[M x N] = A[M x K] * B[K x N], row-major. A block computes a TILE x TILE tile of
            // C with (TILE / T)^2 threads, each a T x T micro-tile held in registers; A and B
            // come through shared memory in BK-deep slabs (A stored transposed, so that a
            // thread's column of A and row of B are each contiguous). Any M, N, K.
            template <int TILE, int BK, int T>
            __global__ void __launch_bounds__((TILE / T) * (TILE / T))
            sgemm(const float* __restrict__ A, const float* __restrict__ B,
                  float* __restrict__ C, int M, int N, int K) {
                constexpr int SIDE = TILE / T;
                constexpr int THREADS = SIDE * SIDE;
                __shared__ float As[BK][TILE];
                __shared__ float Bs[BK][TILE];
                const int tid = threadIdx.x;
                const int tr = tid / SIDE, tc = tid % SIDE;
                const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
                float acc[T][T];
                #pragma unroll
                for (int i = 0; i < T; ++i)
                    #pragma unroll
                    for (int j = 0; j < T; ++j) acc[i][j] = 0.0f;
                for (int k0 = 0; k0 < K; k0 += BK) {
                    for (int i = tid; i < TILE * BK; i += THREADS) {
                        int m = i / BK, k = i % BK;
                        int r = row0 + m, c = k0 + k;
                        As[k][m] = (r < M && c < K) ? A[(size_t)r * K + c] : 0.0f;
                    }
                    for (int i = tid; i < BK * TILE; i += THREADS) {
                        int k = i / TILE, n = i % TILE;
                        int r = k0 + k, c = col0 + n;
                        Bs[k][n] = (r < K && c < N) ? B[(size_t)r * N + c] : 0.0f;
                    }
                    __syncthreads();
                    #pragma unroll
                    for (int k = 0; k < BK; ++k) {
                        float a[T], b[T];
                        #pragma unroll
                        for (int i = 0; i < T; ++i) a[i] = As[k][tr * T + i];
                        #pragma unroll
                        for (int j = 0; j < T; ++j) b[j] = Bs[k][tc * T + j];
                        #pragma unroll
                        for (int i = 0; i < T; ++i)
                            #pragma unroll
                            for (int j = 0; j < T; ++j) acc[i][j] += a[i] * b[j];
                    }
                    __syncthreads();
                }
                #pragma unroll
                for (int i = 0; i < T; ++i)
                    #pragma unroll
                    for (int j = 0; j < T; ++j) {
                        int r = row0 + tr * T + i, c = col0 + tc * T + j;
                        if (r < M && c < N) C[(size_t)r * N + c] = acc[i][j];
                    }
            }
        "#;
        tune sgemm {
            variants = [
                "TILE=32 BK=8 T=2", "TILE=32 BK=16 T=2", "TILE=32 BK=8 T=4",
                "TILE=64 BK=8 T=2", "TILE=64 BK=8 T=4", "TILE=64 BK=16 T=4",
                "TILE=64 BK=8 T=8", "TILE=128 BK=8 T=8", "TILE=128 BK=16 T=8",
            ];
            block = "(TILE / T) * (TILE / T)";
            grid = "(N.div_ceil(TILE), M.div_ceil(TILE))";
        }
    }
}

/// `(M, N, K)`: square sizes, and one whose sides are no multiple of any tile.
const SHAPES: [(usize, usize, usize); 5] = [
    (256, 256, 256),
    (1000, 3000, 700),
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (4096, 4096, 4096),
];
/// Entries of C checked against the CPU, per shape.
const CHECKED: usize = 256;

fn main() -> ExitCode {
    kernel_examples::run("tuned_sgemm", &[embedded!(gemm)], tuned_sgemm)
}

fn tuned_sgemm(gpu: &Gpu) -> Result<Report, Error> {
    let g = gemm::load(gpu)?;
    let mut report = Report::new("tuned_sgemm", gpu);
    report.fact(
        "variants",
        format!(
            "{} listed (TILE, BK, T)",
            gemm::METADATA.tuned[0].variants.len()
        ),
    );
    let mut rng = Rng::with_seed(54);
    for (m, n, k) in SHAPES {
        let a_host = rng.nonzero_f32s(m * k);
        let b_host = rng.nonzero_f32s(k * n);
        let a = gpu.upload(&a_host)?;
        let b = gpu.upload(&b_host)?;
        let mut c = gpu.zeros::<f32>(m * n)?;
        let (mi, ni, ki) = (m as i32, n as i32, k as i32);
        // SAFETY: every variant reads A[r * K + c] for r < M, c < K and B[r * N + c] for
        // r < K, c < N, and writes C[r * N + c] for r < M, c < N only, whatever the grid;
        // the buffers hold M * K, K * N and M * N floats.
        let mut call =
            || unsafe { g.sgemm_tuned((mi, ni, ki), Idempotent, &a, &b, &mut c, mi, ni, ki) };
        call()?;
        let settled = mean_time(gpu, 10, &mut call)?;
        let key = format!("{m}x{n}x{k}");
        let chosen = gemm::tuners::SGEMM
            .choices()
            .into_iter()
            .find(|ch| ch.key == key)
            .map_or_else(|| "(pinned)".to_owned(), |ch| ch.variant);
        let c_host = gpu.download(&c)?;
        // Random entries of C against double-precision dot products; each product's error is
        // a few roundings of its terms' magnitudes.
        let (mut got, mut want, mut worst) = (Vec::new(), Vec::new(), 0.0f64);
        for _ in 0..CHECKED {
            let (r, col) = (rng.usize(..m), rng.usize(..n));
            let (mut dot, mut magnitude) = (0.0f64, 0.0f64);
            for i in 0..k {
                let term = f64::from(a_host[r * k + i]) * f64::from(b_host[i * n + col]);
                dot += term;
                magnitude += term.abs();
            }
            got.push(f64::from(c_host[r * n + col]));
            want.push(dot);
            worst = worst.max(magnitude);
        }
        let flops = 2.0 * (m * n * k) as f64;
        let tflops = flops / settled.as_secs_f64() / 1e12;
        println!(
            "{key:>14}: chose {chosen:<16} settled call {:>9.3} ms, {tflops:>6.2} TFLOP/s",
            settled.as_secs_f64() * 1e3
        );
        report
            .fact(
                &key,
                format!(
                    "{chosen} ({:.3} ms, {tflops:.2} TFLOP/s)",
                    settled.as_secs_f64() * 1e3
                ),
            )
            .check(
                &format!("C of {key}"),
                compare(&got, &want, Tolerance::new(2e-5 * worst, 0.0)),
            );
    }
    report.fact(
        "timing runs",
        format!("{} (one per shape)", gemm::tuners::SGEMM.tunings()),
    );
    Ok(report)
}

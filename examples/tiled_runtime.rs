//! A tiled matrix product compiled at run time: the tile size is chosen from the device's
//! shared memory and thread limits, the CUDA source is compiled by NVRTC for this GPU with
//! `TILE` defined (cached on disk: the second run compiles nothing), and the typed stub built
//! at build time launches it. A second variant with a small tile runs beside it; both are
//! checked against a CPU reference on sampled rows.

use std::process::ExitCode;
use std::time::Instant;

use cuda_kernel_runtime::{DeviceLimits, Error, Gpu, Launch, cuda_module};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded, mean_time};

cuda_module! {
    /// `c = a * b`, row-major (a is m x k, b is k x n), in TILE x TILE tiles.
    mod tiled {
        compile = "runtime";
        source = r#"
            #ifndef TILE
            #define TILE 32
            #endif
            #define PER_THREAD 4   // outputs per thread, down a column

            // Launch with (TILE, TILE / PER_THREAD) threads and a
            // (ceil(n / TILE), ceil(m / TILE)) grid.
            extern "C" __global__ void matmul(const float* a, const float* b, float* c,
                                              int m, int n, int k) {
                __shared__ float as[TILE][TILE];
                __shared__ float bs[TILE][TILE];
                const int rows = TILE / PER_THREAD;
                int tx = threadIdx.x, ty = threadIdx.y;
                int row0 = blockIdx.y * TILE, col = blockIdx.x * TILE + tx;
                float acc[PER_THREAD] = {0.0f};
                for (int t = 0; t < k; t += TILE) {
                    for (int r = ty; r < TILE; r += rows) {
                        int ar = row0 + r, ac = t + tx, br = t + r;
                        as[r][tx] = (ar < m && ac < k) ? a[ar * k + ac] : 0.0f;
                        bs[r][tx] = (br < k && col < n) ? b[br * n + col] : 0.0f;
                    }
                    __syncthreads();
                    #pragma unroll 8
                    for (int e = 0; e < TILE; ++e) {
                        float bv = bs[e][tx];
                        #pragma unroll
                        for (int j = 0; j < PER_THREAD; ++j) acc[j] += as[ty + j * rows][e] * bv;
                    }
                    __syncthreads();
                }
                for (int j = 0; j < PER_THREAD; ++j) {
                    int row = row0 + ty + j * rows;
                    if (row < m && col < n) c[row * n + col] = acc[j];
                }
            }
        "#;
        fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: i32, n: i32, k: i32);
    }
}

// Not multiples of any tile, so the edges are exercised.
const M: usize = 1500;
const N: usize = 1300;
const K: usize = 1100;
const PER_THREAD: u32 = 4;
const REPEATS: u32 = 5;
const SAMPLED_ROWS: usize = 16;

fn main() -> ExitCode {
    kernel_examples::run("tiled_runtime", &[embedded!(tiled)], run)
}

/// The largest tile whose two `TILE x TILE` float tiles fit the static shared memory of a
/// block and whose `TILE x TILE / 4` threads fit a block.
fn choose_tile(limits: &DeviceLimits) -> u32 {
    [128u32, 64, 32, 16]
        .into_iter()
        .find(|&t| {
            2 * t * t * 4 <= limits.max_shared_per_block
                && t * (t / PER_THREAD) <= limits.max_threads_per_block
        })
        .unwrap_or(8)
}

fn run(gpu: &Gpu) -> Result<Report, Error> {
    let mut rng = Rng::with_seed(9);
    let (a_host, b_host) = (rng.nonzero_f32s(M * K), rng.nonzero_f32s(K * N));
    let a = gpu.upload(&a_host)?;
    let b = gpu.upload(&b_host)?;
    let rows: Vec<usize> = (0..SAMPLED_ROWS).map(|_| rng.usize(..M)).collect();
    let want = reference_rows(&a_host, &b_host, &rows);
    // Sums of K products of magnitude < 4, rounded in float in different orders.
    let tol = Tolerance::new(5e-3, 1e-4);
    let flop = 2.0 * (M * N * K) as f64;

    let chosen = choose_tile(gpu.limits());
    let mut report = Report::new("tiled matmul compiled at run time", gpu);
    report.fact(
        "tile",
        format!(
            "{chosen} (from {} B of shared memory and {} threads per block)",
            gpu.limits().max_shared_per_block,
            gpu.limits().max_threads_per_block
        ),
    );
    for tile in [chosen, 16] {
        let value = tile.to_string();
        let started = Instant::now();
        let module = tiled::load_with(
            gpu,
            &tiled::Options {
                defines: &[("TILE", &value)],
                ..Default::default()
            },
        )?;
        let loaded = started.elapsed();
        let mut c = gpu.zeros::<f32>(M * N)?;
        let cfg = Launch::new(
            ((N as u32).div_ceil(tile), (M as u32).div_ceil(tile)),
            (tile, tile / PER_THREAD),
        );
        let took = mean_time(gpu, REPEATS, || {
            // SAFETY: matmul reads a[0..m*k] and b[0..k*n] and writes c[0..m*n] only, guarded
            // by m, n and k; the buffers hold exactly that many elements, and the block has the
            // (TILE, TILE / 4) shape the variant was compiled for.
            unsafe { module.matmul(&cfg, &a, &b, &mut c, M as i32, N as i32, K as i32) }
        })?;
        let got = gpu.download(&c)?;
        let picked: Vec<f32> = rows
            .iter()
            .flat_map(|&r| got[r * N..(r + 1) * N].iter().copied())
            .collect();
        report
            .fact(
                &format!("TILE={tile} load"),
                format!(
                    "{:.1} ms (NVRTC, or the disk cache)",
                    loaded.as_secs_f64() * 1e3
                ),
            )
            .time(&format!("TILE={tile}"), took, Some((flop / 1e9, "GFLOP/s")))
            .check(
                &format!("TILE={tile} (sampled rows)"),
                compare(&picked, &want, tol),
            );
    }
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

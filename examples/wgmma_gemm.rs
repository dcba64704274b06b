//! A Hopper GEMM written the way such kernels are written today, launched through a typed
//! stub: `C = A · Bᵀ` in bf16 with f32 accumulation, where TMA (`cp.async.bulk.tensor`, tiles
//! swizzled by 128 bytes) feeds a four-stage shared-memory pipeline guarded by `mbarrier`s, one
//! warp group loads while two multiply with `wgmma.mma_async` (m64n256k16), registers moved
//! from the loader to the multipliers with `setmaxnreg`, and two CTAs of a cluster share the B
//! tile: each loads half and multicasts it to both. The tensor maps are typed arguments
//! (`&TensorMap<bf16>`). Compared with cuBLAS (`cublasGemmEx`, loaded at run time through
//! cudarc) on the same buffers in the same process, and checked against a CPU reference.
//!
//! ```text
//! cargo run --release -p kernel-examples --example wgmma_gemm [-- SIZE]
//! ```

use std::process::ExitCode;
use std::time::Duration;

use cuda_kernel_runtime::{
    CudaSlice, Error, Gpu, Launch, Swizzle, TensorMap, TensorMapOptions, bf16, cuda_module,
};
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, sys as blas_sys};
use kernel_examples::{
    Comparison, NonZeroData, Report, Rng, Tolerance, compare, embedded, mean_time,
};

cuda_module! {
    /// The warp-specialized bf16 GEMM.
    mod hopper_gemm {
        source = r#"
            #include <cuda.h>
            #include <cuda_bf16.h>
            #include <stdint.h>

            // One CTA computes a 128 x 256 tile of C. A is M x K and B is N x K (both with K
            // contiguous: the layout wgmma reads without transposing), C is M x N row-major.
            constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4;
            constexpr uint32_t A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2;
            constexpr int GROUP = 8;  // cluster pairs along M walked before the next column

            __device__ __forceinline__ uint32_t smem(const void* p) {
                return static_cast<uint32_t>(__cvta_generic_to_shared(p));
            }
            __device__ __forceinline__ void bar_init(uint32_t bar, uint32_t count) {
                asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count));
            }
            __device__ __forceinline__ void bar_expect(uint32_t bar, uint32_t bytes) {
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                             :: "r"(bar), "r"(bytes) : "memory");
            }
            __device__ __forceinline__ void bar_wait(uint32_t bar, uint32_t parity) {
                uint32_t done = 0;
                while (!done) {
                    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
                }
            }
            // Arrives on the barrier at the same offset in the cluster's CTA of rank `cta`. The
            // arrival says a stage's tiles were read; those reads were wgmma's (the async
            // proxy), finished by wgmma.wait_group, so no cluster-wide release fence is needed
            // (`.release.cluster` costs a fence per stage and halves the throughput).
            __device__ __forceinline__ void bar_arrive_in(uint32_t bar, uint32_t cta) {
                asm volatile("{ .reg .b32 r; mapa.shared::cluster.u32 r, %0, %1; mbarrier.arrive.shared::cluster.b64 _, [r]; }"
                             :: "r"(bar), "r"(cta) : "memory");
            }
            __device__ __forceinline__ void cluster_sync() {
                asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
            }
            __device__ __forceinline__ void tma_load(uint32_t dst, const CUtensorMap* map, uint32_t bar, int x, int y) {
                asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
                             :: "r"(dst), "l"(map), "r"(bar), "r"(x), "r"(y) : "memory");
            }
            // The same tile into both CTAs of the cluster, at the same offsets, signalling
            // each one's barrier.
            __device__ __forceinline__ void tma_load_both(uint32_t dst, const CUtensorMap* map, uint32_t bar, int x, int y) {
                asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;"
                             :: "r"(dst), "l"(map), "r"(bar), "r"(x), "r"(y), "h"((uint16_t)3) : "memory");
            }
            // The wgmma descriptor of a K-major tile with 128-byte rows swizzled by 128 bytes
            // (as TMA writes it with CU_TENSOR_MAP_SWIZZLE_128B): 8-row groups 1024 bytes apart.
            __device__ __forceinline__ uint64_t desc(uint32_t addr) {
                return uint64_t((addr >> 4) & 0x3FFF) | (uint64_t(1) << 16)
                     | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
            }
            #define D1(i) "+f"(d[i])
            #define D4(i) D1(i), D1(i + 1), D1(i + 2), D1(i + 3)
            #define D16(i) D4(i), D4(i + 4), D4(i + 8), D4(i + 12)
            #define D64(i) D16(i), D16(i + 16), D16(i + 32), D16(i + 48)
            // d (64 x 256 over the warp group) += A tile (64 x 16) * B tile (256 x 16)^T.
            __device__ __forceinline__ void mma(float (&d)[128], uint64_t da, uint64_t db) {
                asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, 1, 1, 1, 0, 0;"
                             : D64(0), D64(64) : "l"(da), "l"(db));
            }

            // C = A * B^T for M a multiple of 256, N of 256, K of 64 (the host checks).
            extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1)
            gemm_bf16_tn(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b,
                         __nv_bfloat16* c, int m, int n, int k) {
                extern __shared__ uint8_t raw[];
                const uint32_t base = (smem(raw) + 1023) & ~1023u;  // swizzled tiles: 1024-aligned
                const uint32_t sa = base, sb = base + STAGES * A_BYTES;
                const uint32_t full = sb + STAGES * B_BYTES, empty = full + STAGES * 8;
                uint32_t rank;
                asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));

                // Which tile: clusters walk groups of GROUP pairs of row tiles, column by column,
                // so that the CTAs resident at once share their A and B tiles in L2.
                const int pairs_m = m / (2 * BM), tiles_n = n / BN, kt_count = k / BK;
                const int pair = blockIdx.x / 2, group = GROUP * tiles_n;
                const int first = pair / group * GROUP, in_group = pair % group;
                const int gm = min(pairs_m - first, GROUP);
                const int row0 = ((first + in_group % gm) * 2 + rank) * BM, col0 = in_group / gm * BN;

                if (threadIdx.x == 0) {
                    for (int s = 0; s < STAGES; ++s) {
                        bar_init(full + 8 * s, 1);
                        bar_init(empty + 8 * s, 4);  // two multiplying warp groups in each CTA
                    }
                    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
                }
                cluster_sync();  // the peer's barriers exist before anything is multicast

                const int wg = threadIdx.x / 128;
                if (wg == 0) {
                    // The loader: one thread issues every copy.
                    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
                    if (threadIdx.x == 0) {
                        for (int kt = 0; kt < kt_count; ++kt) {
                            const int s = kt % STAGES, round = kt / STAGES;
                            bar_wait(empty + 8 * s, (round & 1) ^ 1);  // both CTAs done with s
                            bar_expect(full + 8 * s, A_BYTES + B_BYTES);
                            tma_load(sa + s * A_BYTES, &a, full + 8 * s, kt * BK, row0);
                            tma_load_both(sb + s * B_BYTES + rank * (B_BYTES / 2), &b, full + 8 * s,
                                          kt * BK, col0 + rank * (BN / 2));
                        }
                    }
                } else {
                    // The multipliers: 64 rows each, one stage's products in flight while the
                    // next stage's are issued.
                    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
                    float d[128];
            #pragma unroll
                    for (int i = 0; i < 128; ++i) d[i] = 0.f;
                    const uint32_t a_rows = (wg - 1) * 64 * 128;
                    for (int kt = 0; kt < kt_count; ++kt) {
                        const int s = kt % STAGES;
                        bar_wait(full + 8 * s, (kt / STAGES) & 1);
                        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
            #pragma unroll
                        for (int kk = 0; kk < BK / 16; ++kk) {
                            mma(d, desc(sa + s * A_BYTES + a_rows + kk * 32), desc(sb + s * B_BYTES + kk * 32));
                        }
                        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
                        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
                        if (kt > 0 && threadIdx.x % 128 == 0) {  // the previous stage is free
                            const int prev = (kt - 1) % STAGES;
                            bar_arrive_in(empty + 8 * prev, 0);
                            bar_arrive_in(empty + 8 * prev, 1);
                        }
                    }
                    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
                    // Warp w, lane l holds rows 16w + l/4 (and + 8), columns 8j + 2(l % 4) (and + 1).
                    const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
                    const int row = row0 + (wg - 1) * 64 + warp * 16 + lane / 4;
                    __nv_bfloat16* out = c + size_t(row) * n + col0 + (lane % 4) * 2;
            #pragma unroll
                    for (int j = 0; j < BN / 8; ++j) {
                        *reinterpret_cast<__nv_bfloat162*>(out + 8 * j) =
                            __floats2bfloat162_rn(d[4 * j], d[4 * j + 1]);
                        *reinterpret_cast<__nv_bfloat162*>(out + size_t(8) * n + 8 * j) =
                            __floats2bfloat162_rn(d[4 * j + 2], d[4 * j + 3]);
                    }
                }
                // Neither CTA leaves while the other may still multicast into it or arrive on
                // its barriers.
                cluster_sync();
            }
        "#;
        arch = ["sm_90a"];
    }
}

const BM: usize = 128;
const BN: usize = 256;
const BK: usize = 64;
const STAGES: usize = 4;
/// The pipeline's stages (A and B tiles), the barriers, and room to align the tiles to 1 KiB.
const SHARED: u32 = (STAGES * (BM + BN) * BK * 2 + 2 * STAGES * 8 + 1024) as u32;
const REPEATS: u32 = 10;
const ROUNDS: usize = 3;

fn main() -> ExitCode {
    kernel_examples::run("wgmma_gemm", &[embedded!(hopper_gemm)], wgmma_gemm)
}

fn wgmma_gemm(gpu: &Gpu) -> Result<Report, Error> {
    let mut report = Report::new("wgmma_gemm", gpu);
    if gpu.limits().compute_capability != (9, 0) {
        report.fact(
            "skipped",
            "wgmma and sm_90a images need compute capability 9.0",
        );
        return Ok(report);
    }
    let size: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(8192);
    let k = hopper_gemm::load(gpu)?;

    // Every element against a CPU reference on a small product (K spans more stages than
    // the pipeline holds, so every stage is reused).
    let (m, n, kk) = (512, 768, 640);
    let (a, b) = (random_bf16(m * kk, 1), random_bf16(n * kk, 2));
    // cudarc's buffers throughout: cuBLAS (through cudarc) takes them, and so do the stubs.
    let s = gpu.stream();
    let (da, db) = (s.clone_htod(&a)?, s.clone_htod(&b)?);
    let mut dc = s.alloc_zeros::<bf16>(m * n)?;
    gemm(&k, &da, &db, &mut dc, (m, n, kk))?;
    let got = gpu.download(&dc)?;
    let want: Vec<f64> = (0..m * n).map(|i| dot(&a, &b, kk, i / n, i % n)).collect();
    report.check(
        &format!("{m} x {n} x {kk}, every element vs CPU"),
        against(&got, &want),
    );

    // The large product: ours and cuBLAS on the same buffers, alternating rounds.
    let (m, n, kk) = (size, size, size);
    if m % (2 * BM) != 0 || n % BN != 0 || kk % BK != 0 {
        return Err(Error::Unsupported {
            what: "this GEMM's shape",
            device: gpu.name().to_owned(),
            reason: format!("{m} x {n} x {kk}: M and N must be multiples of 256, K of 64"),
        });
    }
    let (a, b) = (random_bf16(m * kk, 3), random_bf16(n * kk, 4));
    let (da, db) = (s.clone_htod(&a)?, s.clone_htod(&b)?);
    let mut ours = s.alloc_zeros::<bf16>(m * n)?;
    let mut theirs = s.alloc_zeros::<bf16>(m * n)?;
    let flops = 2.0 * (m * n * kk) as f64;
    let blas = cublas(gpu)?;
    let mut best = (Duration::MAX, Duration::MAX);
    for _ in 0..ROUNDS {
        best.0 = best.0.min(mean_time(gpu, REPEATS, || {
            gemm(&k, &da, &db, &mut ours, (m, n, kk))
        })?);
        if let Some(blas) = &blas {
            best.1 = best.1.min(mean_time(gpu, REPEATS, || {
                cublas_gemm(blas, &da, &db, &mut theirs, (m, n, kk))
            })?);
        }
    }
    let got = gpu.download(&ours)?;
    // Sampled elements against the CPU: a spread of rows and columns, corners included.
    let mut rng = Rng::with_seed(5);
    let mut picks: Vec<(usize, usize)> = vec![(0, 0), (m - 1, n - 1), (0, n - 1), (m - 1, 0)];
    picks.extend((0..4096).map(|_| (rng.usize(0..m), rng.usize(0..n))));
    let sampled: Vec<bf16> = picks.iter().map(|&(r, c)| got[r * n + c]).collect();
    let want: Vec<f64> = picks.iter().map(|&(r, c)| dot(&a, &b, kk, r, c)).collect();
    report
        .fact(
            "product",
            format!(
                "{m} x {n} x {kk}, bf16 in, f32 accumulation, bf16 out; tiles {BM} x {BN} x {BK}, {STAGES} stages, clusters of 2"
            ),
        )
        .time("wgmma GEMM", best.0, Some((flops / 1e12, "TFLOP/s")))
        .check(
            &format!("{} sampled elements vs CPU", picks.len()),
            against(&sampled, &want),
        );
    if blas.is_some() {
        let from_blas = gpu.download(&theirs)?;
        report
            .time(
                "cuBLAS GEMM, same process",
                best.1,
                Some((flops / 1e12, "TFLOP/s")),
            )
            .fact(
                "ours / cuBLAS",
                format!(
                    "{:.1} % of cuBLAS's throughput",
                    100.0 * best.1.as_secs_f64() / best.0.as_secs_f64()
                ),
            )
            // Both round an f32 sum of the same products to bf16, in different orders.
            .check(
                "every element vs cuBLAS",
                compare(&got, &from_blas, Tolerance::new(0.1, 1.0 / 128.0)),
            );
    } else {
        report.fact("cuBLAS", "not found (libcublas is loaded at run time)");
    }
    Ok(report)
}

/// Launches the kernel for `C = A · Bᵀ`, `A` being `m × k`, `B` `n × k` and `C` `m × n`.
fn gemm(
    k: &hopper_gemm::Module,
    a: &CudaSlice<bf16>,
    b: &CudaSlice<bf16>,
    c: &mut CudaSlice<bf16>,
    (m, n, kk): (usize, usize, usize),
) -> Result<(), Error> {
    let opts = TensorMapOptions {
        swizzle: Swizzle::B128,
        l2_promotion_256: true,
        ..TensorMapOptions::default()
    };
    // Boxes of 64 K-elements (128 bytes, the swizzle's span) by 128 rows.
    let ma = TensorMap::tiled_with(a, &[kk as u64, m as u64], &[BK as u32, BM as u32], &opts)?;
    let mb = TensorMap::tiled_with(b, &[kk as u64, n as u64], &[BK as u32, 128], &opts)?;
    let tiles = (m / BM) * (n / BN);
    let cfg = Launch::new(tiles as u32, 384)
        .with_shared_mem(SHARED)
        .with_cluster(2);
    // SAFETY: the maps describe a (m x k) and b (n x k); c holds m x n elements and every
    // CTA writes only its own 128 x 256 tile, inside it because m and n are multiples of the
    // tile (checked by the callers).
    unsafe { k.gemm_bf16_tn(&cfg, &ma, &mb, c, m as i32, n as i32, kk as i32) }
}

/// cuBLAS, or `None` when its library is not installed.
fn cublas(gpu: &Gpu) -> Result<Option<CudaBlas>, Error> {
    // SAFETY: only looks for the library.
    if !unsafe { blas_sys::is_culib_present() } {
        return Ok(None);
    }
    CudaBlas::new(gpu.stream().clone())
        .map(Some)
        .map_err(|e| blas_error(gpu.name(), &e))
}

/// The same product through `cublasGemmEx`. cuBLAS is column-major: there `C` is `n × m`,
/// `B` a `k × n` matrix and `A` a `k × m` one, so the call is `C = Bᵀ · A` (`b` transposed).
fn cublas_gemm(
    blas: &CudaBlas,
    a: &CudaSlice<bf16>,
    b: &CudaSlice<bf16>,
    c: &mut CudaSlice<bf16>,
    (m, n, kk): (usize, usize, usize),
) -> Result<(), Error> {
    let cfg = GemmConfig {
        transa: blas_sys::cublasOperation_t::CUBLAS_OP_T,
        transb: blas_sys::cublasOperation_t::CUBLAS_OP_N,
        m: n as i32,
        n: m as i32,
        k: kk as i32,
        alpha: bf16::ONE,
        lda: kk as i32,
        ldb: kk as i32,
        beta: bf16::ZERO,
        ldc: n as i32,
    };
    // SAFETY: b is n x k and a m x k (both k-contiguous), c holds m x n elements.
    unsafe { blas.gemm(cfg, b, a, c) }.map_err(|e| blas_error("cuBLAS", &e))
}

fn blas_error(device: &str, e: &dyn std::fmt::Display) -> Error {
    Error::Unsupported {
        what: "cuBLAS",
        device: device.to_owned(),
        reason: e.to_string(),
    }
}

/// Non-zero bf16 values of either sign, magnitudes in [0.25, 2].
fn random_bf16(len: usize, seed: u64) -> Vec<bf16> {
    let mut rng = Rng::with_seed(seed);
    (0..len)
        .map(|_| bf16::from_f64(rng.nonzero_f64()))
        .collect()
}

/// Row `r` of A times row `c` of B, in double precision.
fn dot(a: &[bf16], b: &[bf16], k: usize, r: usize, c: usize) -> f64 {
    let (x, y) = (&a[r * k..][..k], &b[c * k..][..k]);
    x.iter()
        .zip(y)
        .map(|(&p, &q)| f64::from(p) * f64::from(q))
        .sum()
}

/// bf16 results against exact sums: one rounding to bf16 (relative 2^-9) on top of an f32
/// sum of up to K products.
fn against(got: &[bf16], want: &[f64]) -> Comparison {
    let got: Vec<f64> = got.iter().map(|&v| f64::from(v)).collect();
    compare(&got, want, Tolerance::new(0.05, 1.0 / 256.0))
}

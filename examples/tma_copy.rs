//! A Hopper-style copy: TMA tensor maps move 32 × 64 tiles of a float matrix from global
//! memory to shared memory and back (`cp.async.bulk.tensor` load and store), launched in
//! clusters of two through a typed stub, and two copies chained by programmatic dependent
//! launch (the second starts while the first drains, and waits with `griddepcontrol.wait`).
//! Bandwidth is compared with the driver's device-to-device copy in the same process, and the
//! result checked element by element.

use std::process::ExitCode;
use std::time::Duration;

use cuda_kernel_runtime::{
    Error, Gpu, Launch, TensorMap, TensorMapOptions, TrackedBuffer, cuda_module,
};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded, mean_time};

cuda_module! {
    /// Tile copies through TMA.
    mod tma {
        source = r#"
            #include <cuda.h>
            #include <cuda/barrier>

            using barrier = cuda::barrier<cuda::thread_scope_block>;
            namespace cde = cuda::device::experimental;

            constexpr int BW = 64, BH = 32;  // one tile: 32 rows of 64 floats, 8 KiB

            // dst = src, one tile per block (one warp): a TMA load into shared memory, then a
            // TMA store from it; tiles past the matrix edge are clipped by the hardware. Waits
            // for the previous kernel of the stream (programmatic dependent launch) before
            // reading, and lets the next one start once its store is issued.
            extern "C" __global__ void __launch_bounds__(32)
            tma_copy(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst) {
                __shared__ alignas(128) float tile[BH][BW];
            #pragma nv_diag_suppress static_var_with_dynamic_init
                __shared__ barrier bar;
                int x0 = blockIdx.x * BW, y0 = blockIdx.y * BH;
                if (threadIdx.x == 0) {
                    init(&bar, 1);
                    cde::fence_proxy_async_shared_cta();
                }
                __syncwarp();
                asm volatile("griddepcontrol.wait;" ::: "memory");
                if (threadIdx.x == 0) {
                    cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, &src, x0, y0, bar);
                    barrier::arrival_token token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
                    bar.wait(std::move(token));
                    cde::fence_proxy_async_shared_cta();
                    cde::cp_async_bulk_tensor_2d_shared_to_global(&dst, x0, y0, &tile);
                    cde::cp_async_bulk_commit_group();
                    asm volatile("griddepcontrol.launch_dependents;");
                    cde::cp_async_bulk_wait_group_read<0>();
                }
            }
        "#;
        arch = ["sm_90"];
    }
}

const ROWS: usize = 8001;
const COLS: usize = 16000;
const BW: u32 = 64;
const BH: u32 = 32;
const REPEATS: u32 = 20;

fn main() -> ExitCode {
    kernel_examples::run("tma_copy", &[embedded!(tma)], tma_copy)
}

fn tma_copy(gpu: &Gpu) -> Result<Report, Error> {
    let mut report = Report::new("tma_copy", gpu);
    if gpu.limits().compute_capability.0 < 9 {
        report.fact("skipped", "TMA needs compute capability 9.0");
        return Ok(report);
    }
    let host = Rng::with_seed(97).nonzero_f32s(ROWS * COLS);
    let a = gpu.upload(&host)?;
    let mut b = gpu.zeros::<f32>(ROWS * COLS)?;
    let mut c = gpu.zeros::<f32>(ROWS * COLS)?;
    let dims = [COLS as u64, ROWS as u64];
    let k = tma::load(gpu)?;
    let grid = ((COLS as u32).div_ceil(BW), (ROWS as u32).div_ceil(BH));
    // Clusters of two blocks along x: the grid's x extent (250 tiles) is even.
    let cfg = Launch::new(grid, 32).with_cluster(2);
    let bytes = 2.0 * (ROWS * COLS * 4) as f64; // read + written

    let one = {
        let ma = TensorMap::tiled(&a, &dims, &[BW, BH])?;
        let mb = TensorMap::tiled_mut(&mut b, &dims, &[BW, BH], &TensorMapOptions::default())?;
        mean_time(gpu, REPEATS, || {
            // SAFETY: both maps describe ROWS x COLS floats of buffers that hold them.
            unsafe { k.tma_copy(&cfg, &ma, &mb) }
        })?
    };
    let memcpy = mean_time(gpu, REPEATS, || gpu.copy(&a, &mut c))?;

    // a → b, then b → c with programmatic dependent launch.
    // b is written by the first copy and read by the second: a shared map of it serves both.
    let chained = |b: &TrackedBuffer<f32>,
                   c: &mut TrackedBuffer<f32>,
                   pdl: bool|
     -> Result<Duration, Error> {
        let ma = TensorMap::tiled(&a, &dims, &[BW, BH])?;
        let mb = TensorMap::tiled(b, &dims, &[BW, BH])?;
        let mc = TensorMap::tiled_mut(c, &dims, &[BW, BH], &TensorMapOptions::default())?;
        let second = cfg.with_programmatic(pdl);
        mean_time(gpu, REPEATS, || {
            // SAFETY: as above; the second waits for the first before reading b.
            unsafe {
                k.tma_copy(&cfg, &ma, &mb)?;
                k.tma_copy(&second, &mb, &mc)
            }
        })
    };
    gpu.memset_zeros(&mut c)?;
    let plain_pair = chained(&b, &mut c, false)?;
    gpu.memset_zeros(&mut c)?;
    let pdl_pair = chained(&b, &mut c, true)?;
    let got = gpu.download(&c)?;

    let gbs = |t: Duration| bytes / t.as_secs_f64() / 1e9;
    report
        .fact(
            "matrix",
            format!("{ROWS} x {COLS} f32, tiles {BH} x {BW}, clusters of 2"),
        )
        .time("TMA copy", one, Some((bytes / 1e9, "GB/s")))
        .time("cuMemcpyDtoD", memcpy, Some((bytes / 1e9, "GB/s")))
        .fact(
            "TMA / memcpy",
            format!("{:.1} %", 100.0 * gbs(one) / gbs(memcpy)),
        )
        .time("two copies, stream order", plain_pair, None)
        .time("two copies, PDL", pdl_pair, None)
        .check("a → b → c (PDL)", compare(&got, &host, Tolerance::EXACT));
    Ok(report)
}

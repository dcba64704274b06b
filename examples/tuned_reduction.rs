//! A sum tuned over sixteen declared variants: one template kernel (`BLOCK` threads a block,
//! `ITEMS` elements a thread, warp shuffles, one `atomicAdd` a block), and a `tune` item that
//! makes every combination of four block sizes and four item counts a variant, with the
//! launch shape as rules. The generated `block_sum_tuned(key, outputs, args...)` times the
//! sixteen on the first call for each size and launches the fastest after that.
//!
//! For each of five sizes (4,096 to 16,777,216 floats) it prints the variant chosen, the
//! time the tuner measured for it, the wall time of the first call (the tuning run, or a
//! lookup when the cache already holds the size), the mean time of a settled call, and the
//! same for the untuned default (`BLOCK = 256, ITEMS = 4`, launched through its own typed
//! stub, as a program without tuning would), and checks the sum against the CPU's. `tests/bench/tuned_reduction_anchor.py` runs Triton's
//! `@triton.autotune` over the same sizes and prints its times in the same units.
//!
//! ```text
//! cargo run --release -p kernel-examples --example tuned_reduction
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use cuda_kernel_runtime::tune::RestoreWritten;
use cuda_kernel_runtime::{Error, Gpu, Launch, cuda_module};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded, mean_time};

cuda_module! {
    /// A block-wide sum, tuned over its block size and items per thread.
    mod sums {
        source = r#"
            // Sum over the 32 lanes of a warp; lane 0 ends with the total.
            __device__ float warp_sum(float v) {
                for (int offset = 16; offset > 0; offset /= 2)
                    v += __shfl_down_sync(0xffffffffu, v, offset);
                return v;
            }

            // Adds the sum of x[0..n) into total[0]: each block sums BLOCK * ITEMS elements
            // (ITEMS a thread, strided by BLOCK so that a warp's loads are contiguous).
            template <int BLOCK, int ITEMS>
            __global__ void __launch_bounds__(BLOCK)
            block_sum(const float* __restrict__ x, float* total, int n) {
                __shared__ float warp_sums[BLOCK / 32];
                int base = blockIdx.x * BLOCK * ITEMS + threadIdx.x;
                float v = 0.0f;
                #pragma unroll
                for (int k = 0; k < ITEMS; ++k) {
                    int i = base + k * BLOCK;
                    if (i < n) v += x[i];
                }
                v = warp_sum(v);
                int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
                if (lane == 0) warp_sums[warp] = v;
                __syncthreads();
                if (warp == 0) {
                    v = lane < BLOCK / 32 ? warp_sums[lane] : 0.0f;
                    v = warp_sum(v);
                    if (lane == 0) atomicAdd(total, v);
                }
            }
        "#;
        tune block_sum {
            BLOCK = [128, 256, 512, 1024];
            ITEMS = [1, 2, 4, 8];
            block = "BLOCK";
            grid = "n.div_ceil(BLOCK * ITEMS)";
        }
    }
}

/// The sizes, as the Triton anchor runs them.
const SIZES: [usize; 5] = [1 << 12, 1 << 16, 1 << 20, 1 << 22, 1 << 24];
const REPS: u32 = 200;
/// The variant a program without tuning would launch: a common block size, four items.
const DEFAULT: (&str, u32, u32) = ("block256_items4", 256, 4);

fn main() -> ExitCode {
    kernel_examples::run("tuned_reduction", &[embedded!(sums)], tuned_reduction)
}

fn tuned_reduction(gpu: &Gpu) -> Result<Report, Error> {
    let m = sums::load(gpu)?;
    let mut report = Report::new("tuned_reduction", gpu);
    report.fact(
        "variants",
        format!(
            "{} (BLOCK x ITEMS), as METADATA lists them",
            sums::METADATA.tuned[0].variants.len()
        ),
    );
    let mut rng = Rng::with_seed(54);
    for n in SIZES {
        let xs = rng.nonzero_f32s(n);
        let x = gpu.upload(&xs)?;
        let mut total = gpu.zeros::<f32>(1)?;
        let count = n as i32;
        // SAFETY: every variant reads x[i] for i < n only and adds into total[0]; x holds n
        // floats. The kernel adds into `total`: RestoreWritten puts it back after timing.
        let call =
            |total: &mut _| unsafe { m.block_sum_tuned(n, RestoreWritten, &x, total, count) };
        let started = Instant::now();
        call(&mut total)?;
        gpu.synchronize()?;
        let first_call = started.elapsed();
        let got = f64::from(gpu.download(&total)?[0]);
        let chosen = sums::tuners::BLOCK_SUM
            .choices()
            .into_iter()
            .find(|c| c.key == n.to_string())
            .map(|c| (c.variant, Duration::from_nanos(c.nanos)))
            .unwrap_or_else(|| ("(pinned)".into(), Duration::ZERO));
        let settled = mean_time(gpu, REPS, || call(&mut total))?;
        let (default_name, block, items) = DEFAULT;
        let cfg = Launch::new((n as u32).div_ceil(block * items), block);
        // SAFETY: as above; the default is one of the sixteen, launched with its own shape.
        let default = mean_time(gpu, REPS, || unsafe {
            m.block_sum__256_4(&cfg, &x, &mut total, count)
        })?;
        // Reference in double precision. Each block's partial is a float added into the
        // total by `atomicAdd`, in no fixed order: the error grows with the number of
        // blocks, bounded loosely by a small fraction of the sum of magnitudes.
        let want: f64 = xs.iter().map(|&v| f64::from(v)).sum();
        let magnitude: f64 = xs.iter().map(|&v| f64::from(v.abs())).sum();
        println!(
            "n = {n:>9}: chose {:<18} tuner {:>9.3} us, first call {:>8.2} ms, settled call {:>9.3} us, {:>7.1} GB/s; untuned {default_name} {:>9.3} us ({:.2}x)",
            chosen.0,
            chosen.1.as_secs_f64() * 1e6,
            first_call.as_secs_f64() * 1e3,
            settled.as_secs_f64() * 1e6,
            (n * 4) as f64 / settled.as_secs_f64() / 1e9,
            default.as_secs_f64() * 1e6,
            default.as_secs_f64() / settled.as_secs_f64(),
        );
        report
            .fact(
                &format!("n = {n}"),
                format!(
                    "{} ({:.3} us a call; first call {:.2} ms; untuned {default_name} {:.3} us)",
                    chosen.0,
                    settled.as_secs_f64() * 1e6,
                    first_call.as_secs_f64() * 1e3,
                    default.as_secs_f64() * 1e6,
                ),
            )
            .check(
                &format!("sum of {n}"),
                compare(
                    &[got],
                    &[want],
                    Tolerance::new(1e-5 * magnitude + 1e-3, 0.0),
                ),
            );
    }
    report.fact(
        "timing runs",
        format!(
            "{} (one per size; 0 when the cache or a table answered)",
            sums::tuners::BLOCK_SUM.tunings()
        ),
    );
    Ok(report)
}

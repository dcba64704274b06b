//! Autotuning on the GPU: a template reduction instantiated eight times (block size × items
//! per thread) in an inline `cuda_module!`, wrapped by hand into variants of one `Tuner`.
//!
//! - the tuned sum equals a CPU reference on random non-zero data, after the timing runs
//!   (the kernel adds into its output, so the call's data is saved and put back: `Restore`);
//! - the chosen variant is within 3% of the best found by timing every variant on its own,
//!   at several problem sizes;
//! - a second process (this binary again) reuses the choice with zero timing runs;
//! - a table made from the choices is used with the cache folder removed, timing nothing;
//! - a variant that cannot launch on this GPU is left out with a note;
//! - an idempotent kernel is timed on the real buffers and its output is exact.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use std::path::Path;

use cuda_kernel_runtime::tune::{Idempotent, Outputs, Restore, Table, Tuner, Variant};
use cuda_kernel_runtime::{Error, Gpu, Launch, TrackedBuffer, cuda_module};
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};

cuda_module! {
    /// Reductions and a scale, each a template over the block size and the items per thread.
    mod sums {
        source = r#"
            template <int BLOCK, int ITEMS>
            __global__ void __launch_bounds__(BLOCK) block_sum(const float* x, float* total, int n) {
                __shared__ float s[BLOCK];
                float v = 0.0f;
                int base = blockIdx.x * BLOCK * ITEMS + threadIdx.x;
                #pragma unroll
                for (int k = 0; k < ITEMS; ++k) {
                    int i = base + k * BLOCK;
                    if (i < n) v += x[i];
                }
                s[threadIdx.x] = v;
                __syncthreads();
                for (int w = BLOCK / 2; w > 0; w >>= 1) {
                    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
                    __syncthreads();
                }
                if (threadIdx.x == 0) atomicAdd(total, s[0]);
            }
            template __global__ void block_sum<128, 1>(const float*, float*, int);
            template __global__ void block_sum<128, 4>(const float*, float*, int);
            template __global__ void block_sum<128, 16>(const float*, float*, int);
            template __global__ void block_sum<256, 2>(const float*, float*, int);
            template __global__ void block_sum<256, 8>(const float*, float*, int);
            template __global__ void block_sum<512, 1>(const float*, float*, int);
            template __global__ void block_sum<512, 4>(const float*, float*, int);
            template __global__ void block_sum<1024, 2>(const float*, float*, int);

            template <int BLOCK, int ITEMS>
            __global__ void __launch_bounds__(BLOCK) scale(const float* x, float* y, float a, int n) {
                int base = blockIdx.x * BLOCK * ITEMS + threadIdx.x;
                #pragma unroll
                for (int k = 0; k < ITEMS; ++k) {
                    int i = base + k * BLOCK;
                    if (i < n) y[i] = a * x[i];
                }
            }
            template __global__ void scale<128, 1>(const float*, float*, float, int);
            template __global__ void scale<256, 4>(const float*, float*, float, int);
            template __global__ void scale<1024, 2>(const float*, float*, float, int);
        "#;
    }
}

/// A call of `block_sum`: adds the sum of `x[..n]` into `total[0]`.
struct SumArgs<'a> {
    m: &'a sums::Module,
    x: &'a TrackedBuffer<f32>,
    total: &'a mut TrackedBuffer<f32>,
    n: i32,
}

type SumStub = fn(
    &sums::Module,
    &Launch,
    &TrackedBuffer<f32>,
    &mut TrackedBuffer<f32>,
    i32,
) -> Result<(), Error>;

/// One instantiation of `block_sum` and the block it is launched with.
struct SumShape {
    name: &'static str,
    block: u32,
    items: u32,
    stub: SumStub,
}

impl Variant<SumArgs<'_>> for SumShape {
    fn name(&self) -> &str {
        self.name
    }

    fn launch(&self, _: &Gpu, a: &mut SumArgs<'_>) -> Result<(), Error> {
        let per_block = self.block * self.items;
        let cfg = Launch::new((a.n as u32).div_ceil(per_block), self.block);
        (self.stub)(a.m, &cfg, a.x, a.total, a.n)
    }
}

macro_rules! shape {
    ($name:literal, $block:literal, $items:literal, $method:ident) => {
        SumShape {
            name: $name,
            block: $block,
            items: $items,
            // SAFETY: thread i reads x[i] for i < n only and adds into total[0].
            stub: |m, cfg, x, total, n| unsafe { m.$method(cfg, x, total, n) },
        }
    };
}

fn sum_shapes() -> Vec<SumShape> {
    vec![
        shape!("b128_i1", 128, 1, block_sum__128_1),
        shape!("b128_i4", 128, 4, block_sum__128_4),
        shape!("b128_i16", 128, 16, block_sum__128_16),
        shape!("b256_i2", 256, 2, block_sum__256_2),
        shape!("b256_i8", 256, 8, block_sum__256_8),
        shape!("b512_i1", 512, 1, block_sum__512_1),
        shape!("b512_i4", 512, 4, block_sum__512_4),
        shape!("b1024_i2", 1024, 2, block_sum__1024_2),
    ]
}

/// `total` saved before timing and put back after: the kernel adds into it.
fn keep_total<'a>() -> impl Outputs<SumArgs<'a>> {
    Restore::new(
        |gpu: &Gpu, a: &SumArgs<'_>| gpu.duplicate(&*a.total),
        |gpu: &Gpu, saved: TrackedBuffer<f32>, a: &mut SumArgs<'_>| gpu.copy(&saved, &mut *a.total),
    )
}

/// The tuned sum of `xs` (added to a zeroed total), with `tuner`.
fn tuned_sum(gpu: &Gpu, tuner: &Tuner<i32>, m: &sums::Module, xs: &[f32]) -> Result<f32, Error> {
    let x = gpu.upload(xs)?;
    let mut total = gpu.zeros::<f32>(1)?;
    let n = xs.len() as i32;
    let mut args = SumArgs {
        m,
        x: &x,
        total: &mut total,
        n,
    };
    tuner.launch(gpu, &n, &sum_shapes(), &mut args, keep_total())?;
    Ok(gpu.download(&total)?[0])
}

fn cpu_sum(xs: &[f32]) -> f64 {
    xs.iter().map(|&v| f64::from(v)).sum()
}

/// The sum is right within float rounding: each partial is a float, so the error grows with
/// the square root of the count, bounded loosely here.
fn assert_sum(got: f32, xs: &[f32]) {
    let want = cpu_sum(xs);
    let tol = 1e-5 * xs.iter().map(|v| f64::from(v.abs())).sum::<f64>() + 1e-3;
    assert!(
        (f64::from(got) - want).abs() <= tol,
        "sum of {} values: got {got}, want {want} (tolerance {tol})",
        xs.len()
    );
}

/// Each variant's median time per launch, each timed on its own in batches of about a
/// millisecond, rounds interleaved.
fn exhaustive(gpu: &Gpu, args: &mut SumArgs<'_>, shapes: &[SumShape]) -> Result<Vec<f64>, Error> {
    let mut batch = Vec::new();
    for s in shapes {
        let ((), t) = gpu.time(|| s.launch(gpu, args))?;
        let each = t.as_secs_f64().max(1e-6);
        batch.push(((1e-3 / each).ceil() as u32).clamp(1, 2000));
    }
    let mut samples = vec![Vec::new(); shapes.len()];
    for _ in 0..11 {
        for (i, s) in shapes.iter().enumerate() {
            let ((), t) = gpu.time(|| {
                for _ in 0..batch[i] {
                    s.launch(gpu, args)?;
                }
                Ok(())
            })?;
            samples[i].push(t.as_secs_f64() / f64::from(batch[i]));
        }
    }
    Ok(samples
        .into_iter()
        .map(kernel_test_support::bench::median)
        .collect())
}

#[test]
fn the_choice_is_within_three_percent_of_the_exhaustive_best_and_the_sum_is_right()
-> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = sums::load(&gpu)?;
    let dir = tempfile::tempdir().unwrap();
    let tuner = Tuner::<i32>::new("block_sum")
        .module(&sums::METADATA)
        .cache_dir(dir.path());
    let mut rng = Rng::with_seed(54);
    for n in [1 << 12, 1 << 16, 1 << 20, 1 << 22, 1 << 24] {
        let xs = rng.nonzero_f32s(n);
        let started = std::time::Instant::now();
        let got = tuned_sum(&gpu, &tuner, &m, &xs)?;
        let first_call = started.elapsed();
        assert_sum(got, &xs);
        // A second call: a lookup, the same variant, the same (right) sum.
        assert_sum(tuned_sum(&gpu, &tuner, &m, &xs)?, &xs);

        let chosen = tuner
            .choices()
            .into_iter()
            .find(|c| c.key == n.to_string())
            .expect("the key was settled by timing");
        let shapes = sum_shapes();
        let x = gpu.upload(&xs)?;
        let mut total = gpu.zeros::<f32>(1)?;
        let mut args = SumArgs {
            m: &m,
            x: &x,
            total: &mut total,
            n: n as i32,
        };
        let times = exhaustive(&gpu, &mut args, &shapes)?;
        let best = times.iter().copied().fold(f64::INFINITY, f64::min);
        let at = shapes
            .iter()
            .position(|s| s.name == chosen.variant)
            .unwrap();
        let best_name = shapes[times.iter().position(|&t| t == best).unwrap()].name;
        println!(
            "n = {n:>9}: chose {} ({:.2} us), exhaustive best {best_name} ({:.2} us), first call {:.1} ms",
            chosen.variant,
            times[at] * 1e6,
            best * 1e6,
            first_call.as_secs_f64() * 1e3
        );
        assert!(
            times[at] <= best * 1.03,
            "n = {n}: chose {} at {:.3} us, but {best_name} takes {:.3} us",
            chosen.variant,
            times[at] * 1e6,
            best * 1e6
        );
    }
    assert_eq!(tuner.tunings(), 5);
    Ok(())
}

#[allow(
    clippy::disallowed_methods,
    reason = "the child's instructions, set by the parent"
)]
fn child_dir() -> Option<String> {
    std::env::var("TUNED_CHILD_DIR").ok()
}

/// In a child (`TUNED_CHILD_DIR` set): one tuned sum with the cache in that folder; prints the
/// timing runs. Does nothing otherwise.
#[test]
fn child() -> Result<(), Error> {
    let Some(dir) = child_dir() else {
        return Ok(());
    };
    let gpu = Gpu::new(0)?;
    let m = sums::load(&gpu)?;
    let tuner = Tuner::<i32>::new("block_sum")
        .module(&sums::METADATA)
        .cache_dir(dir);
    let xs = Rng::with_seed(7).nonzero_f32s(1 << 20);
    assert_sum(tuned_sum(&gpu, &tuner, &m, &xs)?, &xs);
    println!("\nRESULT tunings={}", tuner.tunings());
    Ok(())
}

fn run_child(dir: &Path) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env("TUNED_CHILD_DIR", dir)
        .env_remove("KERNEL_TUNE_RETUNE")
        .env_remove("KERNEL_TUNE_PIN")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .find_map(|l| l.split_once("RESULT ").map(|(_, r)| r.to_owned()))
        .unwrap_or_else(|| panic!("no result in {text}"))
}

#[test]
fn a_second_process_reuses_the_choice_with_zero_timing_runs() {
    if gpu_or_skip().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_child(dir.path()), "tunings=1");
    assert_eq!(run_child(dir.path()), "tunings=0");
}

#[test]
fn the_table_made_from_the_choices_is_used_with_the_cache_folder_removed() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = sums::load(&gpu)?;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("tune");
    let xs = Rng::with_seed(11).nonzero_f32s(1 << 18);
    let tuning = Tuner::<i32>::new("block_sum")
        .module(&sums::METADATA)
        .cache_dir(&cache);
    assert_sum(tuned_sum(&gpu, &tuning, &m, &xs)?, &xs);
    assert_eq!(tuning.tunings(), 1);
    // What `cuda-kernel-inspect tune export` writes from the folder, and a program embeds.
    let text = Table::render(&cuda_kernel_runtime::tune::read_cache(Some(&cache))?);
    assert_eq!(text, Table::render(&tuning.choices()));
    std::fs::remove_dir_all(&cache).unwrap();
    let table: &'static Table = Box::leak(Box::new(Table::new(Box::leak(text.into_boxed_str()))));
    let deployed = Tuner::<i32>::new("block_sum")
        .module(&sums::METADATA)
        .table(table)
        .cache_dir(&cache);
    assert_sum(tuned_sum(&gpu, &deployed, &m, &xs)?, &xs);
    assert_eq!(deployed.tunings(), 0, "the table answered");
    assert_eq!(deployed.choices(), tuning.choices());
    assert!(!cache.exists(), "nothing was timed, so nothing was cached");
    Ok(())
}

#[test]
fn a_variant_that_cannot_launch_is_left_out_with_a_note() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = sums::load(&gpu)?;
    let tuner = Tuner::<i32>::new("block_sum").no_cache().rounds(3);
    let mut shapes = sum_shapes();
    // 2048 threads a block: more than any GPU (and the kernel's launch bounds) allow.
    shapes.push(shape!("b2048_i1", 2048, 1, block_sum__1024_2));
    let xs = Rng::with_seed(3).nonzero_f32s(1 << 16);
    let x = gpu.upload(&xs)?;
    let mut total = gpu.zeros::<f32>(1)?;
    let n = xs.len() as i32;
    let mut args = SumArgs {
        m: &m,
        x: &x,
        total: &mut total,
        n,
    };
    tuner.launch(&gpu, &n, &shapes, &mut args, keep_total())?;
    assert_sum(gpu.download(&total)?[0], &xs);
    let notes = tuner.notes();
    assert!(notes.iter().any(|n| n.contains("`b2048_i1`")), "{notes:?}");
    assert_ne!(tuner.choices()[0].variant, "b2048_i1");
    Ok(())
}

/// A call of `scale`: `y = a * x`.
struct ScaleArgs<'a> {
    m: &'a sums::Module,
    x: &'a TrackedBuffer<f32>,
    y: &'a mut TrackedBuffer<f32>,
    a: f32,
    n: i32,
}

#[test]
fn an_idempotent_kernel_is_timed_on_the_real_buffers_and_its_output_is_exact() -> Result<(), Error>
{
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = sums::load(&gpu)?;
    type Stub = fn(
        &sums::Module,
        &Launch,
        &TrackedBuffer<f32>,
        &mut TrackedBuffer<f32>,
        f32,
        i32,
    ) -> Result<(), Error>;
    let shapes: [(&str, u32, u32, Stub); 3] = [
        ("b128_i1", 128, 1, |m, c, x, y, a, n| {
            // SAFETY: thread i writes y[i] from x[i] for i < n only.
            unsafe { m.scale__128_1(c, x, y, a, n) }
        }),
        ("b256_i4", 256, 4, |m, c, x, y, a, n| {
            // SAFETY: as above.
            unsafe { m.scale__256_4(c, x, y, a, n) }
        }),
        ("b1024_i2", 1024, 2, |m, c, x, y, a, n| {
            // SAFETY: as above.
            unsafe { m.scale__1024_2(c, x, y, a, n) }
        }),
    ];
    let variants: Vec<_> = shapes
        .iter()
        .map(|&(name, block, items, stub)| {
            cuda_kernel_runtime::tune::variant(name, move |_: &Gpu, a: &mut ScaleArgs<'_>| {
                let cfg = Launch::new((a.n as u32).div_ceil(block * items), block);
                stub(a.m, &cfg, a.x, a.y, a.a, a.n)
            })
        })
        .collect();
    let xs = Rng::with_seed(5).nonzero_f32s(1 << 20);
    let x = gpu.upload(&xs)?;
    let mut y = gpu.zeros::<f32>(xs.len())?;
    let tuner = Tuner::<usize>::new("scale").no_cache().rounds(5);
    let mut args = ScaleArgs {
        m: &m,
        x: &x,
        y: &mut y,
        a: 1.5,
        n: xs.len() as i32,
    };
    tuner.launch(&gpu, &xs.len(), &variants, &mut args, Idempotent)?;
    let want: Vec<f32> = xs.iter().map(|v| 1.5 * v).collect();
    assert_eq!(gpu.download(&y)?, want);
    assert_eq!(tuner.tunings(), 1);
    Ok(())
}

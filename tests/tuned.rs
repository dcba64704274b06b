//! Autotuning on the GPU through declared variants: a template reduction with eight
//! variants listed in the `tune` item of an inline `cuda_module!`, and a scale over a grid
//! of template and launch axes, each launched through its generated `<kernel>_tuned` entry
//! point.
//!
//! - the tuned sum equals a CPU reference on random non-zero data, after the timing runs
//!   (the kernel adds into its output: `RestoreWritten` saves and puts it back);
//! - the chosen variant is within 3% of the best found by timing every variant on its own,
//!   at five problem sizes, 4,096 elements among them; both time what the device spends per
//!   launch, in replays of captured graphs, so that the host's cost of a launch (about the
//!   time of a whole 4,096-element sum) separates no variant from another;
//! - a second process reuses the choice with zero timing runs;
//! - a table made from the choices is used with the cache folder removed, timing nothing;
//! - an idempotent kernel is timed on the real buffers and its output is exact, and its
//!   variant that cannot launch (2,048 threads a block) is left out with a note.
//!
//! The generated tuners are `static`s, shared by a whole process: each case runs in a child
//! process (this binary again) with its own cache folder. Skips (with the reason) without a
//! GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use std::path::Path;
use std::time::Duration;

use cuda_kernel_runtime::tune::{Idempotent, RestoreWritten, Table, read_cache};
use cuda_kernel_runtime::{Error, Gpu, Graph, Launch, TrackedBuffer, cuda_module};
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};

cuda_module! {
    /// A reduction and a scale, each a template over the block size and the items per thread.
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

            template <int ITEMS>
            __global__ void scale(const float* x, float* y, float a, int n) {
                int base = blockIdx.x * blockDim.x * ITEMS + threadIdx.x;
                #pragma unroll
                for (int k = 0; k < ITEMS; ++k) {
                    int i = base + k * blockDim.x;
                    if (i < n) y[i] = a * x[i];
                }
            }
        "#;
        tune block_sum {
            variants = [
                "BLOCK=128 ITEMS=1", "BLOCK=128 ITEMS=4", "BLOCK=128 ITEMS=16",
                "BLOCK=256 ITEMS=2", "BLOCK=256 ITEMS=8",
                "BLOCK=512 ITEMS=1", "BLOCK=512 ITEMS=4",
                "BLOCK=1024 ITEMS=2",
            ];
            block = "BLOCK";
            grid = "n.div_ceil(BLOCK * ITEMS)";
        }
        tune scale {
            ITEMS = [1, 4];
            THREADS = [128, 1024, 2048];
            block = "THREADS";
            grid = "n.div_ceil(THREADS * ITEMS)";
        }
    }
}

/// The stub of each declared variant of `block_sum`, by its name, with its launch shape.
type SumStub = fn(
    &sums::Module,
    &Launch,
    &TrackedBuffer<f32>,
    &mut TrackedBuffer<f32>,
    i32,
) -> Result<(), Error>;

macro_rules! stub {
    ($name:literal, $block:literal, $items:literal, $method:ident) => {
        (
            $name,
            $block,
            $items,
            // SAFETY: thread i reads x[i] for i < n only and adds into total[0].
            (|m, cfg, x, total, n| unsafe { m.$method(cfg, x, total, n) }) as SumStub,
        )
    };
}

fn sum_stubs() -> Vec<(&'static str, u32, u32, SumStub)> {
    vec![
        stub!("block128_items1", 128, 1, block_sum__128_1),
        stub!("block128_items4", 128, 4, block_sum__128_4),
        stub!("block128_items16", 128, 16, block_sum__128_16),
        stub!("block256_items2", 256, 2, block_sum__256_2),
        stub!("block256_items8", 256, 8, block_sum__256_8),
        stub!("block512_items1", 512, 1, block_sum__512_1),
        stub!("block512_items4", 512, 4, block_sum__512_4),
        stub!("block1024_items2", 1024, 2, block_sum__1024_2),
    ]
}

/// The tuned sum of `xs` (added to a zeroed total).
fn tuned_sum(gpu: &Gpu, m: &sums::Module, xs: &[f32]) -> Result<f32, Error> {
    let x = gpu.upload(xs)?;
    let mut total = gpu.zeros::<f32>(1)?;
    let n = xs.len() as i32;
    // SAFETY: every variant reads x[i] for i < n only and adds into total[0].
    unsafe { m.block_sum_tuned(n, RestoreWritten, &x, &mut total, n)? };
    Ok(gpu.download(&total)?[0])
}

/// The sum is right within float rounding: each partial is a float, so the error grows with
/// the square root of the count, bounded loosely here.
fn assert_sum(got: f32, xs: &[f32]) {
    let want: f64 = xs.iter().map(|&v| f64::from(v)).sum();
    let tol = 1e-5 * xs.iter().map(|v| f64::from(v.abs())).sum::<f64>() + 1e-3;
    assert!(
        (f64::from(got) - want).abs() <= tol,
        "sum of {} values: got {got}, want {want} (tolerance {tol})",
        xs.len()
    );
}

/// Each variant's median device time per launch, each timed on its own: a graph of about a
/// millisecond of its launches, replayed in 21 rounds that visit every variant in turn.
fn exhaustive(
    gpu: &Gpu,
    m: &sums::Module,
    x: &TrackedBuffer<f32>,
    total: &mut TrackedBuffer<f32>,
    n: i32,
) -> Result<Vec<f64>, Error> {
    let stubs = sum_stubs();
    let capture =
        |total: &mut TrackedBuffer<f32>, i: usize, launches: u32| -> Result<Graph, Error> {
            let (_, block, items, stub) = stubs[i];
            let cfg = Launch::new((n as u32).div_ceil(block * items), block);
            let graph = gpu.capture(|g| {
                let on = m.with_stream(g.stream());
                for _ in 0..launches {
                    stub(&on, &cfg, x, total, n)?;
                }
                Ok(())
            })?;
            graph.upload()?;
            Ok(graph)
        };
    let mut graphs = Vec::new();
    for i in 0..stubs.len() {
        let probe = capture(total, i, 16)?;
        probe.launch()?;
        let ((), t) = gpu.time(|| probe.launch())?;
        let each = (t.as_secs_f64() / 16.0).max(1e-7);
        let launches = ((1e-3 / each).ceil() as u32).clamp(16, 8192);
        graphs.push((launches, capture(total, i, launches)?));
    }
    let mut samples = vec![Vec::new(); graphs.len()];
    for _ in 0..21 {
        for (i, (launches, graph)) in graphs.iter().enumerate() {
            let ((), t) = gpu.time(|| graph.launch())?;
            samples[i].push(t.as_secs_f64() / f64::from(*launches));
        }
    }
    Ok(samples
        .into_iter()
        .map(kernel_test_support::bench::median)
        .collect())
}

#[allow(
    clippy::disallowed_methods,
    reason = "the child's instructions, set by the parent"
)]
fn child_case() -> Option<(String, String)> {
    let case = std::env::var("TUNED_CHILD").ok()?;
    let arg = std::env::var("TUNED_CHILD_ARG").unwrap_or_default();
    Some((case, arg))
}

/// Runs `case` in a child process with its cache in `cache`; its `RESULT` line.
fn run_child(case: &str, cache: &Path, arg: &str) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env("TUNED_CHILD", case)
        .env("TUNED_CHILD_ARG", arg)
        .env("KERNEL_TUNE_CACHE_DIR", cache)
        .env_remove("KERNEL_TUNE_RETUNE")
        .env_remove("KERNEL_TUNE_PIN")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    print!("{text}");
    assert!(
        out.status.success(),
        "child `{case}` failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .find_map(|l| l.split_once("RESULT ").map(|(_, r)| r.to_owned()))
        .unwrap_or_else(|| panic!("no result in {text}"))
}

/// In a child (`TUNED_CHILD` set): the case it names. Does nothing otherwise.
#[test]
fn child() -> Result<(), Error> {
    let Some((case, arg)) = child_case() else {
        return Ok(());
    };
    let gpu = Gpu::new(0)?;
    let m = sums::load(&gpu)?;
    match case.as_str() {
        "choice" => choice_within_three_percent(&gpu, &m)?,
        "reuse" => {
            let xs = Rng::with_seed(7).nonzero_f32s(1 << 20);
            assert_sum(tuned_sum(&gpu, &m, &xs)?, &xs);
            println!("\nRESULT tunings={}", sums::tuners::BLOCK_SUM.tunings());
        }
        "table" => {
            // Tune with the cache, then write the table `cuda-kernel-inspect tune export`
            // would write from the cache folder.
            let xs = Rng::with_seed(11).nonzero_f32s(1 << 18);
            assert_sum(tuned_sum(&gpu, &m, &xs)?, &xs);
            assert_eq!(sums::tuners::BLOCK_SUM.tunings(), 1);
            let cache = cuda_kernel_runtime::tune::read_cache(None)?;
            let text = Table::render(&cache);
            assert_eq!(text, Table::render(&sums::tuners::BLOCK_SUM.choices()));
            std::fs::write(&arg, text).unwrap();
            println!("\nRESULT written");
        }
        "deployed" => {
            let text = std::fs::read_to_string(&arg).unwrap();
            let table: &'static Table =
                Box::leak(Box::new(Table::new(Box::leak(text.into_boxed_str()))));
            sums::tuners::BLOCK_SUM.use_table(table);
            let xs = Rng::with_seed(11).nonzero_f32s(1 << 18);
            assert_sum(tuned_sum(&gpu, &m, &xs)?, &xs);
            assert_eq!(sums::tuners::BLOCK_SUM.tunings(), 0, "the table answered");
            assert_eq!(sums::tuners::BLOCK_SUM.choices(), table.choices()?);
            println!("\nRESULT tunings=0");
        }
        "idempotent" => idempotent_scale(&gpu, &m)?,
        other => panic!("no case `{other}`"),
    }
    Ok(())
}

fn choice_within_three_percent(gpu: &Gpu, m: &sums::Module) -> Result<(), Error> {
    let mut rng = Rng::with_seed(54);
    for n in [1 << 12, 1 << 16, 1 << 20, 1 << 22, 1 << 24] {
        let xs = rng.nonzero_f32s(n);
        let started = std::time::Instant::now();
        let got = tuned_sum(gpu, m, &xs)?;
        let first_call = started.elapsed();
        assert_sum(got, &xs);
        // A second call: a lookup, the same variant, the same (right) sum.
        let started = std::time::Instant::now();
        assert_sum(tuned_sum(gpu, m, &xs)?, &xs);
        let second_call = started.elapsed();

        let chosen = sums::tuners::BLOCK_SUM
            .choices()
            .into_iter()
            .find(|c| c.key == n.to_string())
            .expect("the key was settled by timing");
        let x = gpu.upload(&xs)?;
        let mut total = gpu.zeros::<f32>(1)?;
        let times = exhaustive(gpu, m, &x, &mut total, n as i32)?;
        let stubs = sum_stubs();
        let best = times.iter().copied().fold(f64::INFINITY, f64::min);
        let at = stubs
            .iter()
            .position(|s| s.0 == chosen.variant)
            .expect("a declared variant");
        let best_name = stubs[times.iter().position(|&t| t == best).unwrap()].0;
        // What a program without tuning launches: one common shape for every size.
        let default = stubs
            .iter()
            .position(|s| s.0 == "block256_items2")
            .expect("a declared variant");
        println!(
            "n = {n:>9}: chose {} ({:.3} us; the tuner measured {:.3} us), exhaustive best {best_name} ({:.3} us), untuned block256_items2 {:.3} us, first call {:.1} ms, second {:.0} us",
            chosen.variant,
            times[at] * 1e6,
            Duration::from_nanos(chosen.nanos).as_secs_f64() * 1e6,
            best * 1e6,
            times[default] * 1e6,
            first_call.as_secs_f64() * 1e3,
            second_call.as_secs_f64() * 1e6,
        );
        assert!(
            times[at] <= best * 1.03,
            "n = {n}: chose {} at {:.3} us, but {best_name} takes {:.3} us",
            chosen.variant,
            times[at] * 1e6,
            best * 1e6
        );
    }
    assert_eq!(sums::tuners::BLOCK_SUM.tunings(), 5);
    println!("\nRESULT within 3%");
    Ok(())
}

fn idempotent_scale(gpu: &Gpu, m: &sums::Module) -> Result<(), Error> {
    let xs = Rng::with_seed(5).nonzero_f32s(1 << 20);
    let x = gpu.upload(&xs)?;
    let mut y = gpu.zeros::<f32>(xs.len())?;
    let n = xs.len() as i32;
    // SAFETY: thread i writes y[i] from x[i] for i < n only.
    unsafe { m.scale_tuned(n, Idempotent, &x, &mut y, 1.5, n)? };
    let want: Vec<f32> = xs.iter().map(|v| 1.5 * v).collect();
    assert_eq!(gpu.download(&y)?, want);
    let tuner = &sums::tuners::SCALE;
    assert_eq!(tuner.tunings(), 1);
    let notes = tuner.notes();
    // 2,048 threads a block: more than any GPU allows.
    for left in ["items1_threads2048", "items4_threads2048"] {
        assert!(
            notes.iter().any(|n| n.contains(&format!("`{left}`"))),
            "{notes:?}"
        );
    }
    assert!(!tuner.choices()[0].variant.ends_with("2048"));
    println!("\nRESULT exact");
    Ok(())
}

#[test]
fn the_choice_is_within_three_percent_of_the_exhaustive_best_and_the_sum_is_right() {
    if gpu_or_skip().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_child("choice", dir.path(), ""), "within 3%");
}

#[test]
fn a_second_process_reuses_the_choice_with_zero_timing_runs() {
    if gpu_or_skip().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_child("reuse", dir.path(), ""), "tunings=1");
    assert_eq!(run_child("reuse", dir.path(), ""), "tunings=0");
}

#[test]
fn the_table_made_from_the_choices_is_used_with_the_cache_folder_removed() {
    if gpu_or_skip().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("tune");
    let table = dir.path().join("tuned.tsv");
    let table_arg = table.to_string_lossy().into_owned();
    assert_eq!(run_child("table", &cache, &table_arg), "written");
    assert!(read_cache(Some(&cache)).is_ok_and(|rows| rows.len() == 1));
    std::fs::remove_dir_all(&cache).unwrap();
    assert_eq!(run_child("deployed", &cache, &table_arg), "tunings=0");
    assert!(!cache.exists(), "nothing was timed, so nothing was cached");
}

#[test]
fn an_idempotent_kernel_is_timed_on_the_real_buffers_and_a_variant_that_cannot_launch_is_left_out()
{
    if gpu_or_skip().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run_child("idempotent", dir.path(), ""), "exact");
}

#[test]
fn the_module_lists_its_declared_variants() {
    let spec = &sums::METADATA;
    let names: Vec<&str> = spec.tuned.iter().map(|t| t.name).collect();
    assert_eq!(names, ["sums::block_sum", "sums::scale"]);
    let sum = &spec.tuned[0];
    assert_eq!(sum.axes, ["BLOCK", "ITEMS"]);
    assert_eq!(sum.variants.len(), 8);
    for v in sum.variants {
        let k = &spec.kernels[v.kernel];
        assert!(
            k.name.starts_with("block_sum<") && k.name.contains(v.values[0]),
            "{} launches {}",
            v.name,
            k.name
        );
    }
    let scale = &spec.tuned[1];
    assert_eq!(scale.variants.len(), 6);
    assert_eq!(scale.variants[5].name, "items4_threads2048");
    assert_eq!(scale.variants[5].values, ["4", "2048"]);
}

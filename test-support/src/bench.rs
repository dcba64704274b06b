//! What the benchmarks share: timing back-to-back calls, the summary statistics they report,
//! and the report line, human-readable and as `BENCH {json}` for machines.

use std::time::Instant;

use cuda_kernel_runtime::Gpu;

/// Microseconds per call of `calls` back-to-back calls of `f`, including draining the GPU's
/// queue at the end (so work `f` only queued is counted).
///
/// # Panics
/// When the final synchronisation fails: a benchmark has nothing to report then.
///
/// ```no_run
/// let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let mut n = 0u64;
/// let us = kernel_test_support::bench::per_call_us(&gpu, 1000, &mut || n += 1);
/// assert!(us >= 0.0 && n == 1000);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub fn per_call_us(gpu: &Gpu, calls: usize, f: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        f();
    }
    gpu.synchronize().unwrap();
    start.elapsed().as_secs_f64() * 1e6 / calls as f64
}

/// Microseconds of the host's time per call of `calls` calls of `f`, made in bursts of
/// `burst` with the GPU drained between bursts outside the timing: what a call costs the
/// host while the device keeps up, never the device's own rate once its queue is full.
/// `f` gets the call's index within its burst.
///
/// # Panics
/// When a synchronisation fails, or `burst` is 0.
///
/// ```no_run
/// let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let mut n = 0u64;
/// let us = kernel_test_support::bench::host_us_per_call(&gpu, 1024, 256, &mut |_| n += 1);
/// assert!(us >= 0.0 && n == 1024);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub fn host_us_per_call(gpu: &Gpu, calls: usize, burst: usize, f: &mut dyn FnMut(usize)) -> f64 {
    assert!(burst > 0, "a burst makes at least one call");
    let bursts = calls / burst;
    let mut host = 0.0;
    for _ in 0..bursts {
        let start = Instant::now();
        for i in 0..burst {
            f(i);
        }
        host += start.elapsed().as_secs_f64();
        gpu.synchronize_device().unwrap();
    }
    host * 1e6 / (bursts * burst) as f64
}

/// The middle sample (the upper one of the two middles for an even count).
///
/// # Panics
/// On an empty list.
///
/// ```
/// assert_eq!(kernel_test_support::bench::median(vec![3.0, 1.0, 2.0]), 2.0);
/// ```
pub fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// The smallest sample: the repetition least disturbed by other work on the machine.
///
/// ```
/// assert_eq!(kernel_test_support::bench::fastest(&[3.0, 1.0, 2.0]), 1.0);
/// ```
pub fn fastest(samples: &[f64]) -> f64 {
    samples.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Prints one figure: an aligned line for people, then `BENCH {"name":…,"value":…,"unit":…}`.
///
/// ```
/// kernel_test_support::bench::report("launch.raw_us", 3.2, "us/launch");
/// ```
pub fn report(name: &str, value: f64, unit: &str) {
    println!("{name:<44} {value:>10.3} {unit}");
    println!("BENCH {{\"name\":\"{name}\",\"value\":{value:.4},\"unit\":\"{unit}\"}}");
}

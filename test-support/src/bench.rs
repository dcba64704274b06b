//! What the benchmarks share: timing back-to-back calls and interleaved bursts, the raw
//! `cuLaunchKernel` of their `empty4` kernel, the summary statistics they report, and the
//! report line, human-readable and as `BENCH {json}` for machines.

use std::ffi::c_void;
use std::time::Instant;

use cuda_kernel_runtime_core::{Gpu, RawDevicePtr};
use cudarc::driver::{DriverError, result, sys};

/// The four arguments of the benchmarks' `empty4(const float*, float*, int, float)` kernel,
/// which ignores them, for raw `cuLaunchKernel` calls beside the runtime's launch paths.
///
/// ```no_run
/// # use cuda_kernel_runtime_core::{Gpu, RawDevicePtr};
/// # let gpu = Gpu::new(0)?;
/// # let func: cudarc::driver::sys::CUfunction = std::ptr::null_mut();
/// let (a, b) = (gpu.zeros::<f32>(32)?, gpu.zeros::<f32>(32)?);
/// let mut args = kernel_test_support::bench::Empty4Args::new(RawDevicePtr::of(&a), RawDevicePtr::of(&b));
/// // SAFETY: `func` is an `empty4` of the current context.
/// unsafe { args.launch(func, gpu.stream().cu_stream()) }.unwrap();
/// # Ok::<(), cuda_kernel_runtime_core::Error>(())
/// ```
pub struct Empty4Args {
    /// `const float* a`.
    pub a: RawDevicePtr,
    /// `float* b`.
    pub b: RawDevicePtr,
    /// `int n`.
    pub n: i32,
    /// `float s`.
    pub s: f32,
}

impl Empty4Args {
    /// The buffers `a` and `b`, `n = 0` and `s = 1`.
    ///
    /// ```
    /// let args = kernel_test_support::bench::Empty4Args::new(
    ///     cuda_kernel_runtime_core::RawDevicePtr::NULL,
    ///     cuda_kernel_runtime_core::RawDevicePtr::NULL,
    /// );
    /// assert_eq!((args.n, args.s), (0, 1.0));
    /// ```
    pub fn new(a: RawDevicePtr, b: RawDevicePtr) -> Self {
        Empty4Args { a, b, n: 0, s: 1.0 }
    }

    /// The parameter pointers `cuLaunchKernel` takes, into `self`.
    ///
    /// ```
    /// let null = cuda_kernel_runtime_core::RawDevicePtr::NULL;
    /// let mut args = kernel_test_support::bench::Empty4Args::new(null, null);
    /// assert!(args.params().iter().all(|p| !p.is_null()));
    /// ```
    pub fn params(&mut self) -> [*mut c_void; 4] {
        [
            (&raw mut self.a).cast(),
            (&raw mut self.b).cast(),
            (&raw mut self.n).cast(),
            (&raw mut self.s).cast(),
        ]
    }

    /// `cuLaunchKernel` of `func` with one block of 32 threads on `stream`.
    ///
    /// # Safety
    /// `func` must be a kernel taking `(const float*, float*, int, float)` that touches no
    /// memory through them (`empty4`), of the context current to this thread.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime_core::Gpu::new(0)?;
    /// # let func: cudarc::driver::sys::CUfunction = std::ptr::null_mut();
    /// let null = cuda_kernel_runtime_core::RawDevicePtr::NULL;
    /// let mut args = kernel_test_support::bench::Empty4Args::new(null, null);
    /// // SAFETY: `func` is an `empty4` of the current context.
    /// unsafe { args.launch(func, gpu.stream().cu_stream()) }.unwrap();
    /// # Ok::<(), cuda_kernel_runtime_core::Error>(())
    /// ```
    #[inline]
    pub unsafe fn launch(
        &mut self,
        func: sys::CUfunction,
        stream: sys::CUstream,
    ) -> Result<(), DriverError> {
        let mut params = self.params();
        // SAFETY: forwarded to the caller; `params` points into `self`, alive across the call.
        unsafe { result::launch_kernel(func, (1, 1, 1), (32, 1, 1), 0, stream, &mut params) }
    }
}

/// Microseconds per call of `calls` back-to-back calls of `f`, including draining the GPU's
/// queue at the end (so work `f` only queued is counted).
///
/// # Panics
/// When the final synchronisation fails: a benchmark has nothing to report then.
///
/// ```no_run
/// let gpu = cuda_kernel_runtime_core::Gpu::new(0)?;
/// let mut n = 0u64;
/// let us = kernel_test_support::bench::per_call_us(&gpu, 1000, &mut || n += 1);
/// assert!(us >= 0.0 && n == 1000);
/// # Ok::<(), cuda_kernel_runtime_core::Error>(())
/// ```
pub fn per_call_us(gpu: &Gpu, calls: usize, f: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        f();
    }
    gpu.synchronize().unwrap();
    start.elapsed().as_secs_f64() * 1e6 / calls as f64
}

/// The host's time, in microseconds per call, of several ways of doing one thing, measured
/// in interleaved bursts: round `r` runs one burst of `burst` calls of each path, starting
/// with path `r % paths.len()`, and drains the GPU after each burst outside the timing. A
/// burst is short enough that the device's queue never fills (a full queue would time the
/// device's own rate), and the paths of one round run within milliseconds of each other, so
/// that slow drifts of a shared machine touch them alike; compare them round by round with
/// [`paired_ratio`]. `f(path, i)` makes call `i` of a burst of path `path`. Returns, per
/// path, one figure per round.
///
/// # Panics
/// When a synchronisation fails, or `burst` is 0.
///
/// ```no_run
/// use kernel_test_support::bench::{interleaved_bursts, paired_ratio};
/// let gpu = cuda_kernel_runtime_core::Gpu::new(0)?;
/// let mut counts = [0u64; 2];
/// let t = interleaved_bursts(&gpu, 8, 256, 2, &mut |path, _| counts[path] += 1);
/// assert_eq!((t.len(), t[0].len(), counts), (2, 8, [2048, 2048]));
/// let ratio = paired_ratio(&t[1], &t[0]);
/// assert!(ratio > 0.0);
/// # Ok::<(), cuda_kernel_runtime_core::Error>(())
/// ```
pub fn interleaved_bursts(
    gpu: &Gpu,
    rounds: usize,
    burst: usize,
    paths: usize,
    f: &mut dyn FnMut(usize, usize),
) -> Vec<Vec<f64>> {
    assert!(burst > 0, "a burst makes at least one call");
    let mut times = vec![Vec::with_capacity(rounds); paths];
    for round in 0..rounds {
        for turn in 0..paths {
            let path = (round + turn) % paths;
            let start = Instant::now();
            for i in 0..burst {
                f(path, i);
            }
            times[path].push(start.elapsed().as_secs_f64() * 1e6 / burst as f64);
            gpu.synchronize_device().unwrap();
        }
    }
    times
}

/// The median, over rounds, of `a`'s figure over `b`'s in the same round.
///
/// # Panics
/// When the two are empty or of different lengths.
///
/// ```
/// let a = [2.0, 4.0, 9.0];
/// let b = [1.0, 2.0, 3.0];
/// assert_eq!(kernel_test_support::bench::paired_ratio(&a, &b), 2.0);
/// ```
pub fn paired_ratio(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "one figure per round on both sides");
    median(a.iter().zip(b).map(|(a, b)| a / b).collect())
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

//! Work timed on several streams and GPUs at once (`Gpu::time_all`): on every GPU of the
//! machine (two streams of device 0 when there is one), kernels that spin a known number of
//! clock cycles, longer on each later handle, and a kernel whose result is checked against
//! the CPU. Each time is positive, the span is the longest, a handle given more cycles
//! measures longer, four times the cycles measure longer again, and work queued before the
//! call is counted on no stream, even on one that waits for it.
//!
//! Skips (with the reason) without a driver; fails under `KERNEL_REQUIRE_GPU=1`.

use std::time::Duration;

use cuda_kernel_runtime::{Error, Gpu, Launch, TrackedBuffer, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    mod work {
        source = r#"
            // Spins `cycles` clock cycles.
            extern "C" __global__ void spin(unsigned long long cycles) {
                long long start = clock64();
                while ((unsigned long long)(clock64() - start) < cycles) {}
            }

            // x[i] = v after spinning `cycles` clock cycles: writes late.
            extern "C" __global__ void late_fill(
                float* x, float v, int n, unsigned long long cycles) {
                long long start = clock64();
                while ((unsigned long long)(clock64() - start) < cycles) {}
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] = v;
            }

            // y = s * x.
            extern "C" __global__ void scale(const float* x, float* y, float s, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = s * x[i];
            }
        "#;
    }
}

/// About 5 ms of spinning on a GPU clocked near 2 GHz.
const CYCLES: u64 = 10_000_000;

/// The handles to time on: one per GPU, or two streams of device 0 on a machine with one.
fn handles(first: Gpu) -> Result<Vec<Gpu>, Error> {
    let count = Gpu::count()?;
    if count >= 2 {
        (0..count).map(Gpu::new).collect()
    } else {
        let side = first.with_stream(&first.new_stream()?);
        Ok(vec![first, side])
    }
}

/// On each handle `i`: a spin of `cycles * (i + 1)`, then `y = (i + 1) * x`.
fn spin_and_scale(
    gpus: &[Gpu],
    cycles: u64,
    xs: &[TrackedBuffer<f32>],
    ys: &mut [TrackedBuffer<f32>],
) -> Result<(), Error> {
    for (i, ((gpu, x), y)) in gpus.iter().zip(xs).zip(ys).enumerate() {
        let m = work::load(gpu)?;
        let n = x.len();
        // SAFETY: spin touches no memory; scale reads x and writes y, n floats each.
        unsafe {
            m.spin(&Launch::new(1u32, 1u32), cycles * (i as u64 + 1))?;
            m.scale(
                &Launch::for_num_elems(n as u32),
                x,
                &mut *y,
                i as f32 + 1.0,
                n as i32,
            )?;
        }
    }
    Ok(())
}

#[test]
fn work_on_several_gpus_is_timed_per_device_with_the_longest_as_span() {
    let Some(first) = gpu_or_skip() else {
        return;
    };
    let gpus = step("opening every GPU", handles(first));
    let n = 1 << 16;
    let data: Vec<Vec<f32>> = (0..gpus.len())
        .map(|i| Rng::with_seed(70 + i as u64).nonzero_f32s(n))
        .collect();
    let xs: Vec<_> = gpus
        .iter()
        .zip(&data)
        .enumerate()
        .map(|(i, (g, d))| step(&format!("uploading x to handle {i}"), g.upload(d)))
        .collect();
    let mut ys: Vec<_> = gpus
        .iter()
        .enumerate()
        .map(|(i, g)| step(&format!("zeroing y on handle {i}"), g.zeros::<f32>(n)))
        .collect();
    // Loaded (and warmed) before anything is timed.
    step("the warm-up", spin_and_scale(&gpus, 1, &xs, &mut ys));

    let ((), short) = step(
        "the short spins, timed",
        Gpu::time_all(&gpus, || spin_and_scale(&gpus, CYCLES, &xs, &mut ys)),
    );
    for (i, ((gpu, y), d)) in gpus.iter().zip(&ys).zip(&data).enumerate() {
        let want: Vec<f32> = d.iter().map(|v| v * (i as f32 + 1.0)).collect();
        assert_close(&step("downloading y", y.download(gpu)), &want, 1e-6);
    }
    let ((), long) = step(
        "the long spins, timed",
        Gpu::time_all(&gpus, || spin_and_scale(&gpus, 4 * CYCLES, &xs, &mut ys)),
    );
    println!(
        "{} handles; spins of {CYCLES} × (i + 1) cycles: {:?}, span {:?}; four times the \
         cycles: {:?}, span {:?}",
        gpus.len(),
        short.per_device(),
        short.span(),
        long.per_device(),
        long.span()
    );
    for times in [&short, &long] {
        assert_eq!(times.per_device().len(), gpus.len());
        assert!(times.per_device().iter().all(|&t| t > Duration::ZERO));
        assert!(times.per_device().iter().all(|&t| t <= times.span()));
        assert_eq!(
            Some(&times.span()),
            times.per_device().iter().max(),
            "the span is the longest time"
        );
        // The last handle spins `gpus.len()` times the first's cycles.
        let (first, last) = (times.per_device()[0], times.per_device()[gpus.len() - 1]);
        assert!(last > first, "{:?}", times.per_device());
    }
    assert!(
        long.span() > short.span() * 2,
        "four times the cycles: {:?} against {:?}",
        long.span(),
        short.span()
    );
}

/// `result`'s value, or a panic naming the step that failed and the error.
#[track_caller]
fn step<T>(what: &str, result: Result<T, Error>) -> T {
    result.unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// A slow write queued on one stream of device 0 before the call, and work on another stream
/// that reads what it writes: the clocks start once both streams are free, so the second
/// stream's time is its own kernel's, not the wait for the write (which `Gpu::time` on that
/// stream alone would count). The result is checked against the CPU.
#[test]
fn work_queued_before_the_call_is_counted_on_no_stream() -> Result<(), Error> {
    let Some(a) = gpu_or_skip() else {
        return Ok(());
    };
    let b = a.with_stream(&a.new_stream()?);
    let n = 1 << 16;
    let m = work::load(&a)?;
    let launch = Launch::for_num_elems(n as u32);
    let mut x = a.zeros::<f32>(n)?;
    // How long the write alone takes.
    let ((), write) = a.time(|| {
        // SAFETY: late_fill writes x[i] for i < n; x holds n floats.
        unsafe { m.late_fill(&launch, &mut x, 1.0, n as i32, 4 * CYCLES) }
    })?;
    // SAFETY: as above.
    unsafe { m.late_fill(&launch, &mut x, 2.0, n as i32, 4 * CYCLES)? };
    let mut y = b.zeros::<f32>(n)?;
    b.synchronize()?;
    let on_b = m.with_stream(b.stream());
    let ((), times) = Gpu::time_all([&a, &b], || {
        // SAFETY: scale reads x and writes y, n floats each; x's last write orders it.
        unsafe { on_b.scale(&launch, &x, &mut y, 3.0, n as i32) }
    })?;
    assert_close(&y.download(&b)?, &vec![6.0; n], 1e-6);
    println!(
        "a write of {write:?} queued before: times {:?}, span {:?}",
        times.per_device(),
        times.span()
    );
    assert!(
        times.per_device()[1] < write / 2,
        "the second stream counted the wait for work queued before: {:?} (the write alone \
         {write:?})",
        times.per_device()
    );
    Ok(())
}

//! [`mean_time`]: the mean device time of repeated runs, as the examples report it.

use std::time::Duration;

use cuda_kernel_runtime::{Error, Gpu};

/// The mean device time of `repeats` runs of `run` on `gpu`'s stream (timed between two
/// events), after one warm-up run outside the timing.
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let mut x = gpu.zeros::<f32>(1 << 20)?;
/// let took = kernel_examples::mean_time(&gpu, 10, || gpu.memset_zeros(&mut x))?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
///
/// # Errors
///
/// The first error of a run, or of the events.
pub fn mean_time(
    gpu: &Gpu,
    repeats: u32,
    mut run: impl FnMut() -> Result<(), Error>,
) -> Result<Duration, Error> {
    run()?;
    let ((), took) = gpu.time(|| (0..repeats).try_for_each(|_| run()))?;
    Ok(took / repeats.max(1))
}

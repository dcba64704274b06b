//! Timing work on the device with events: on one handle's stream ([`Gpu::time`]), and on the
//! streams of several handles, of one device or several, together ([`Gpu::time_all`], giving
//! [`DeviceTimes`]).
//!
//! An event's time is its own device's: CUDA measures between two events of one context
//! (`cuEventElapsedTime`) and has no elapsed time between events of two devices. So work spread
//! over several GPUs is timed as one duration per stream, each between a start and an end event
//! recorded on that stream, with the starts aligned: before any start is recorded, every stream
//! waits for the work already queued on all the others (`cuStreamWaitEvent` across devices),
//! so that every clock starts once every stream is free, within the time a device takes to see
//! another's event. The span of the work is then the longest of the durations.

use std::sync::Arc;
use std::time::Duration;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};

use crate::device::gpu::Gpu;
use crate::error::{DriverResultExt, Error};

impl Gpu {
    /// Runs `work` between two events recorded on this handle's stream and returns its result
    /// with the device time between them (waits for the work to finish).
    ///
    /// `work` must queue on this handle's stream to be measured. Needs a driver for CUDA 12.8 or
    /// later with the default `cuda-13000` bindings. Work on several streams or GPUs is timed by
    /// [`Gpu::time_all`].
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut buf = gpu.zeros::<u8>(1 << 20)?;
    /// let ((), took) = gpu.time(|| gpu.memset(&mut buf, 1))?;
    /// println!("memset took {took:?}");
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn time<R>(&self, work: impl FnOnce() -> Result<R, Error>) -> Result<(R, Duration), Error> {
        let ctx = self.context();
        let start = ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .call("cuEventCreate")?;
        let end = ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .call("cuEventCreate")?;
        start.record(self.stream()).call("cuEventRecord")?;
        let out = work()?;
        end.record(self.stream()).call("cuEventRecord")?;
        end.synchronize().call("cuEventSynchronize")?;
        let ms = start.elapsed_ms(&end).call("cuEventElapsedTime")?;
        Ok((out, duration_of_ms(ms)))
    }

    /// Runs `work`, which queues on the streams of `gpus` (handles of several devices, or of
    /// several streams of one), and returns its result with the device time on each stream and
    /// their span ([`DeviceTimes`]); waits for every stream's work to finish. One thread
    /// drives them all, as with the communicators of `Communicator::for_gpus` (the `nccl`
    /// feature; pass `comms.iter().map(Communicator::gpu)`); one rank per thread or process
    /// times with `Communicator::time`.
    ///
    /// What is measured: first every stream waits for the work already queued on all the
    /// others, so that the clocks start together once all of them are free; then a start event
    /// is recorded on each stream, `work` runs, and an end event is recorded on each. Each
    /// duration is its own device's time from its start event to its end event (CUDA has no
    /// elapsed time between events of two devices); the span is the longest, the time from the
    /// common start until the last stream finished. Work queued on other streams counts only
    /// where one of these streams waits for it, and host time spent queueing counts where a
    /// device waits for it, as with [`Gpu::time`].
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::Gpu;
    /// let gpus = (0..Gpu::count()?).map(Gpu::new).collect::<Result<Vec<_>, _>>()?;
    /// let mut bufs = gpus.iter().map(|g| g.zeros::<u8>(1 << 28)).collect::<Result<Vec<_>, _>>()?;
    /// let ((), times) = Gpu::time_all(&gpus, || {
    ///     for (g, b) in gpus.iter().zip(&mut bufs) {
    ///         g.memset(b, 1)?;
    ///     }
    ///     Ok(())
    /// })?;
    /// println!("slowest device {:?}, each {:?}", times.span(), times.per_device());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for no handle; `work`'s error; [`Error::Driver`] when an event
    /// cannot be made, recorded or waited for.
    pub fn time_all<'g, R>(
        gpus: impl IntoIterator<Item = &'g Gpu>,
        work: impl FnOnce() -> Result<R, Error>,
    ) -> Result<(R, DeviceTimes), Error> {
        let gpus: Vec<&Gpu> = gpus.into_iter().collect();
        if gpus.is_empty() {
            return Err(Error::OutOfRange {
                what: "Gpu::time_all",
                problem: "no GPU handle to time on was given".to_owned(),
            });
        }
        align(&gpus)?;
        let starts = gpus
            .iter()
            .map(|g| timing_event(g.stream()))
            .collect::<Result<Vec<_>, Error>>()?;
        let out = work()?;
        let ends = gpus
            .iter()
            .map(|g| timing_event(g.stream()))
            .collect::<Result<Vec<_>, Error>>()?;
        let mut per_device = Vec::with_capacity(gpus.len());
        for (start, end) in starts.iter().zip(&ends) {
            end.synchronize().call("cuEventSynchronize")?;
            let ms = start.elapsed_ms(end).call("cuEventElapsedTime")?;
            per_device.push(duration_of_ms(ms));
        }
        Ok((out, DeviceTimes::new(per_device)))
    }
}

/// Makes every stream of `gpus` wait for the work queued so far on each of the others.
fn align(gpus: &[&Gpu]) -> Result<(), Error> {
    if gpus.len() < 2 {
        return Ok(());
    }
    let ready = gpus
        .iter()
        .map(|g| {
            g.stream()
                .record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
                .call("cuEventRecord")
        })
        .collect::<Result<Vec<_>, Error>>()?;
    for (i, waiter) in gpus.iter().enumerate() {
        for (j, (other, event)) in gpus.iter().zip(&ready).enumerate() {
            if i != j && !Arc::ptr_eq(waiter.stream(), other.stream()) {
                // An event of another device is allowed: the driver makes the stream wait
                // for it across devices.
                waiter.stream().wait(event).call("cuStreamWaitEvent")?;
            }
        }
    }
    Ok(())
}

/// An event that keeps its time, recorded on `stream` now.
fn timing_event(stream: &Arc<CudaStream>) -> Result<CudaEvent, Error> {
    stream
        .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .call("cuEventRecord")
}

/// CUDA's milliseconds as a duration (a negative reading, which an event recorded out of order
/// gives, as zero).
fn duration_of_ms(ms: f32) -> Duration {
    Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3)
}

/// The device time of work spread over several streams or GPUs: one duration per stream (per
/// rank for `Communicator::time`, of the `nccl` feature), each measured by that device
/// between events on that stream, and the span, the longest of them. From [`Gpu::time_all`].
///
/// ```no_run
/// # use cuda_kernel_runtime::Gpu;
/// # let gpus = vec![Gpu::new(0)?, Gpu::new(1)?];
/// let ((), times) = Gpu::time_all(&gpus, || Ok(()))?;
/// assert_eq!(times.per_device().len(), 2);
/// assert!(times.per_device().iter().all(|&t| t <= times.span()));
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceTimes {
    per_device: Vec<Duration>,
}

impl DeviceTimes {
    /// The times of the streams (or ranks), in order.
    pub(crate) fn new(per_device: Vec<Duration>) -> DeviceTimes {
        DeviceTimes { per_device }
    }

    /// The time of each stream, in the order the handles were given (or of each rank, by
    /// rank).
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::Gpu;
    /// # let gpus = vec![Gpu::new(0)?, Gpu::new(1)?];
    /// let ((), times) = Gpu::time_all(&gpus, || Ok(()))?;
    /// for (gpu, t) in gpus.iter().zip(times.per_device()) {
    ///     println!("device {}: {t:?}", gpu.ordinal());
    /// }
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn per_device(&self) -> &[Duration] {
        &self.per_device
    }

    /// The span of the work: the longest time, from the aligned start to the end of the last
    /// stream (or rank) to finish.
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::Gpu;
    /// # let gpus = vec![Gpu::new(0)?, Gpu::new(1)?];
    /// let ((), times) = Gpu::time_all(&gpus, || Ok(()))?;
    /// println!("the step took {:?} on the slowest device", times.span());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn span(&self) -> Duration {
        self.per_device
            .iter()
            .copied()
            .max()
            .unwrap_or(Duration::ZERO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_span_is_the_longest_time() {
        let times = DeviceTimes::new(vec![
            Duration::from_micros(300),
            Duration::from_micros(900),
            Duration::from_micros(500),
        ]);
        assert_eq!(times.span(), Duration::from_micros(900));
        assert_eq!(times.per_device()[2], Duration::from_micros(500));
        assert!(times.per_device().iter().all(|&t| t <= times.span()));
        assert_eq!(DeviceTimes::new(Vec::new()).span(), Duration::ZERO);
    }

    #[test]
    fn cuda_milliseconds_become_durations() {
        assert_eq!(duration_of_ms(1.5), Duration::from_micros(1500));
        assert_eq!(duration_of_ms(0.0), Duration::ZERO);
        assert_eq!(duration_of_ms(-0.25), Duration::ZERO);
    }

    #[test]
    fn no_handle_is_an_error_naming_the_call() {
        let e = Gpu::time_all(std::iter::empty(), || Ok(())).unwrap_err();
        assert!(matches!(e, Error::OutOfRange { .. }), "{e:?}");
        assert!(e.to_string().contains("Gpu::time_all"), "{e}");
    }
}

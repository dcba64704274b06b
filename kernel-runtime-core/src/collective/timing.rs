//! Work of several ranks, one per thread or process, timed together
//! ([`Communicator::time`]): a collective starts every rank's clock at once, each rank times
//! its own streams as [`Gpu::time_all`] does, and a second collective gives every rank every
//! rank's time.

use std::sync::Arc;
use std::time::Duration;

use cudarc::nccl::ReduceOp;

use crate::collective::communicator::Communicator;
use crate::device::gpu::Gpu;
use crate::error::Error;
use crate::streams::timing::DeviceTimes;

/// What a rank whose work failed sends in place of its time.
const FAILED: u64 = u64::MAX;

impl Communicator {
    /// Runs `work` on this rank and returns its result with every rank's device time
    /// ([`DeviceTimes`]: one time per rank, by rank, and their span, the slowest rank's);
    /// every rank calls it, as a collective (one rank per thread or process; a thread that
    /// drives several ranks times them with [`Gpu::time_all`]).
    ///
    /// What is measured: an all-reduce of one byte on this rank's stream first waits for every
    /// rank, so that the ranks' clocks start together (within NCCL's latency); then this
    /// rank's work is timed as [`Gpu::time_all`] times it, on the communicator's stream and on
    /// the streams of `also` (other handles of this rank's device, such as the one its kernels
    /// run on: they first wait for the all-reduce too), its time being the longest of them;
    /// last, an all-gather of the times (after the clocks stopped) gives each rank every
    /// rank's. Each time is measured by its own device: no elapsed time between two devices'
    /// events exists, so the span is the slowest rank's time from the common start.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, ReduceOp};
    /// let comm = Communicator::from_env()?;
    /// let gpu = comm.gpu().clone();
    /// let mut grads = gpu.upload(&vec![1.0f32; 1 << 24])?;
    /// let ((), times) = comm.time([], || comm.all_reduce_in_place(&mut grads, &ReduceOp::Sum))?;
    /// if comm.rank() == 0 {
    ///     println!("all-reduce: {:?} (slowest rank), per rank {:?}", times.span(), times.per_device());
    /// }
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// With collectives on a stream of their own and kernels on the device's default stream,
    /// both are timed:
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp, UniqueId};
    /// # let (id, rank, ranks) = (UniqueId::new()?, 0, 2);
    /// let gpu = Gpu::new(rank)?;
    /// let comm = Communicator::for_rank(&gpu.with_stream(&gpu.new_stream()?), &id, rank, ranks)?;
    /// let mut g = gpu.zeros::<f32>(1 << 20)?;
    /// let ((), times) = comm.time([&gpu], || {
    ///     g.memset_zeros(&gpu)?; // on gpu's stream
    ///     comm.all_reduce_in_place(&mut g, &ReduceOp::Sum) // on the communicator's
    /// })?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ForeignContext`] for a handle of `also` on another device; `work`'s error on
    /// the rank where it failed, and [`Error::Collective`] naming that rank on the others
    /// (the times are exchanged all the same, so that no rank waits for a failed one); as
    /// [`Gpu::time_all`] and the collectives.
    pub fn time<'g, R>(
        &self,
        also: impl IntoIterator<Item = &'g Gpu>,
        work: impl FnOnce() -> Result<R, Error>,
    ) -> Result<(R, DeviceTimes), Error> {
        let mut streams: Vec<&Gpu> = vec![&self.gpu];
        for gpu in also {
            if gpu.context().cu_ctx() != self.gpu.context().cu_ctx() {
                return Err(Error::ForeignContext {
                    what: "a stream to time",
                    user: "communicator's rank",
                });
            }
            if streams
                .iter()
                .all(|s| !Arc::ptr_eq(s.stream(), gpu.stream()))
            {
                streams.push(gpu);
            }
        }
        let mut barrier = self.gpu.zeros::<u8>(1)?;
        self.all_reduce_in_place(&mut barrier, &ReduceOp::Max)?;
        let timed = Gpu::time_all(streams, work);
        let mine = match &timed {
            Ok((_, times)) => nanos(times.span()),
            Err(_) => FAILED,
        };
        let part = self.gpu.upload(&[mine])?;
        let mut all = self.gpu.zeros::<u64>(self.ranks())?;
        self.all_gather(&part, &mut all)?;
        let all = self.gpu.download(&all)?;
        let (out, _) = timed?;
        Ok((out, gathered(&all)?))
    }
}

/// A time in nanoseconds, below the mark of a failed rank.
fn nanos(time: Duration) -> u64 {
    u64::try_from(time.as_nanos()).map_or(FAILED - 1, |n| n.min(FAILED - 1))
}

/// Every rank's time from the gathered nanoseconds, or the error naming the first rank whose
/// work failed.
fn gathered(all: &[u64]) -> Result<DeviceTimes, Error> {
    if let Some(rank) = all.iter().position(|&n| n == FAILED) {
        return Err(Error::Collective {
            call: "Communicator::time",
            problem: format!("the work of rank {rank} failed there; it returned the error"),
        });
    }
    Ok(DeviceTimes::new(
        all.iter().map(|&n| Duration::from_nanos(n)).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathered_times_are_each_ranks_and_a_failed_rank_is_named() {
        let times = gathered(&[1_500, 250_000, 9]).unwrap();
        assert_eq!(
            times.per_device(),
            [
                Duration::from_nanos(1_500),
                Duration::from_micros(250),
                Duration::from_nanos(9)
            ]
        );
        assert_eq!(times.span(), Duration::from_micros(250));
        let e = gathered(&[10, 20, FAILED, FAILED]).unwrap_err();
        assert!(e.to_string().contains("rank 2"), "{e}");
    }

    #[test]
    fn a_time_never_reads_as_a_failure() {
        assert_eq!(nanos(Duration::from_micros(3)), 3_000);
        assert_eq!(nanos(Duration::MAX), FAILED - 1);
        assert_eq!(nanos(Duration::from_nanos(FAILED)), FAILED - 1);
    }
}

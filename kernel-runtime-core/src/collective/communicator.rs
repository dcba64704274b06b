//! [`Communicator`]: one rank of an NCCL communicator, bound to a [`Gpu`] handle whose stream
//! its collectives run on. Made for every GPU of the process at once (`ncclCommInitAll`), or
//! for one rank of a group spread over processes or hosts (`ncclCommInitRank`, from a
//! [`UniqueId`] the program passes around), or so with a timeout (`ncclCommInitRankConfig`
//! made non-blocking, then polled until every rank has joined or the time is up).

use std::time::{Duration, Instant};

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use cudarc::nccl::sys::{ncclComm, ncclComm_t};

use crate::collective::config::Config;
use crate::collective::id::UniqueId;
use crate::collective::nccl::{Nccl, Optional, Settled, nccl};
use crate::collective::serial::{self, Together};
use crate::device::gpu::Gpu;
use crate::error::{DriverResultExt, Error};
use crate::memory::peer::join;
use cudarc::driver::CudaStream;

/// One rank of an NCCL communicator: the device of a [`Gpu`] handle, whose stream its
/// collectives are queued on, ordered with the kernels and copies of other streams as a
/// launch is (a collective waits for the last writes of what it reads, and later uses of
/// what it writes wait for it).
///
/// The collectives are methods here ([`all_reduce`](Communicator::all_reduce), ...); several
/// of them, on one communicator or on the communicators of several GPUs driven by one thread,
/// go in a [`Group`](crate::Group). A thread that drives more than one GPU must group their
/// collectives: each waits for the others' ranks, so issued one at a time they would wait for
/// each other forever.
///
/// A communicator may move to another thread but is not shared between threads (NCCL forbids
/// concurrent calls on one communicator). Dropping it waits for its stream, then destroys it
/// (`ncclCommDestroy`); while it waits it asks NCCL for an asynchronous error, and aborts the
/// communicator instead (`ncclCommAbort`) when NCCL reports one, so that a peer NCCL saw fail
/// does not leave the drop waiting forever. A communicator dropped while its thread unwinds
/// from a panic is aborted without waiting. A rank that may wait for a peer that never comes
/// bounds the wait itself with [`wait`](Communicator::wait) and then
/// [`abort`](Communicator::abort)s.
///
/// NCCL's teardown waits for the work of every device of the process, so every rank drops a
/// communicator at the same point: a rank that has already queued a later collective (on any
/// communicator) needing a rank that is still dropping waits forever, and so does the drop.
/// Drop at the end, or put a barrier between the drops and the next collective (for one rank
/// per thread, a [`std::sync::Barrier`]).
///
/// ```no_run
/// use cuda_kernel_runtime::{Communicator, Gpu, Group, ReduceOp};
/// let gpus = (0..Gpu::count()?).map(Gpu::new).collect::<Result<Vec<_>, _>>()?;
/// let comms = Communicator::for_gpus(&gpus)?;
/// let mut grads = gpus
///     .iter()
///     .map(|g| g.upload(&[1.0f32; 1024]))
///     .collect::<Result<Vec<_>, _>>()?;
/// let mut group = Group::start()?;
/// for (comm, g) in comms.iter().zip(&mut grads) {
///     group.all_reduce_in_place(comm, g, &ReduceOp::Sum)?;
/// }
/// group.end()?;
/// assert_eq!(gpus[0].download(&grads[0])?[0], gpus.len() as f32);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
///
/// It is `Send` but not `Sync`: one thread at a time calls it.
///
/// ```compile_fail
/// fn shared<T: Sync>() {}
/// shared::<cuda_kernel_runtime::Communicator>();
/// ```
pub struct Communicator {
    /// Null once aborted (by [`abort`](Communicator::abort), or by `wait` for an
    /// [`AbortHandle`]).
    /// Shared with the views of [`on_stream`](Communicator::on_stream), which see the abort.
    comm: Arc<AtomicPtr<ncclComm>>,
    /// Set by this communicator's [`AbortHandle`]s.
    abort_requested: Arc<AtomicBool>,
    /// A view of another communicator on another stream ([`Communicator::on_stream`]): it
    /// neither aborts nor destroys the communicator.
    view: bool,
    /// Not `Sync`: NCCL takes one call at a time on a communicator.
    _one_thread: PhantomData<Cell<()>>,
    pub(crate) gpu: Gpu,
    rank: usize,
    ranks: usize,
    pub(crate) nccl: &'static Nccl,
    /// The ranks made with this one in this process, when the runtime knows them all
    /// (`serial`).
    pub(crate) together: Option<Arc<Together>>,
    /// NCCL made the communicator non-blocking ([`Communicator::for_rank_timeout`], or
    /// `NCCL_COMM_BLOCKING=0`): its calls return `ncclInProgress` and are finished by polling
    /// (`progress`), and NCCL refuses it in a group with blocking ones.
    pub(crate) non_blocking: bool,
}

// An NCCL communicator may be used from any thread, one call at a time: `Send` (every field
// is), and not `Sync` (`_one_thread`), so that `&self` methods are not offered to two threads
// at once.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<Communicator>();
};

impl Communicator {
    /// One communicator per handle in `gpus`, together (`ncclCommInitAll`): rank `i` is
    /// `gpus[i]`'s device, and its collectives run on `gpus[i]`'s stream. The devices must
    /// differ.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu};
    /// let gpus = vec![Gpu::new(0)?, Gpu::new(1)?];
    /// let comms = Communicator::for_gpus(&gpus)?;
    /// assert_eq!((comms[1].rank(), comms[1].ranks()), (1, 2));
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::NoNccl`] without the library; [`Error::Collective`] for no handle or a device
    /// named twice; [`Error::Nccl`] when NCCL fails.
    pub fn for_gpus(gpus: &[Gpu]) -> Result<Vec<Communicator>, Error> {
        let nccl = nccl()?;
        if gpus.is_empty() {
            return Err(Error::Collective {
                call: "ncclCommInitAll",
                problem: "no GPU given".to_owned(),
            });
        }
        let ordinals: Vec<i32> = gpus.iter().map(|g| g.ordinal() as i32).collect();
        if let Some(twice) = ordinals
            .iter()
            .enumerate()
            .find_map(|(i, o)| ordinals[..i].contains(o).then_some(*o))
        {
            return Err(Error::Collective {
                call: "ncclCommInitAll",
                problem: format!("device {twice} is given twice; each rank needs its own device"),
            });
        }
        gpus[0].context().bind_to_thread().call("cuCtxSetCurrent")?;
        // Made while no other thread queues a whole group (`serial`). Under
        // NCCL_COMM_BLOCKING=0 NCCL makes them non-blocking: finished in the call.
        let guard = serial::lock();
        let made = nccl.comm_init_all(&ordinals);
        drop(guard);
        let made = made?;
        let (comms, non_blocking) = (made.comms, made.non_blocking);
        let ranks = gpus.len();
        let together = Together::new(ranks);
        Ok(comms
            .into_iter()
            .zip(gpus)
            .enumerate()
            .map(|(rank, (comm, gpu))| {
                let together = Some(together.clone());
                Communicator::from_parts(comm, gpu, rank, ranks, nccl, together, non_blocking)
            })
            .collect())
    }

    /// Rank `rank` of a communicator of `ranks` ranks spread over processes or hosts
    /// (`ncclCommInitRank`), on `gpu`'s device and stream. Every rank passes the same `id`
    /// (made by one of them with [`UniqueId::new`] and sent to the others), and the call
    /// returns once all `ranks` have joined.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, UniqueId};
    /// // Rank 0 writes the id where rank 1 reads it (a file here; a socket works as well).
    /// let (rank, path) = (0, "/tmp/nccl-id");
    /// let id = if rank == 0 {
    ///     let id = UniqueId::new()?;
    ///     std::fs::write(path, id.to_bytes()).unwrap();
    ///     id
    /// } else {
    ///     UniqueId::from_bytes(&std::fs::read(path).unwrap()).unwrap()
    /// };
    /// let comm = Communicator::for_rank(&Gpu::new(rank)?, &id, rank, 2)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::NoNccl`] without the library; [`Error::Collective`] when `rank` is not below
    /// `ranks`; [`Error::Nccl`] when NCCL fails (a rank that never joins makes NCCL wait:
    /// [`for_rank_timeout`](Communicator::for_rank_timeout) bounds the wait).
    pub fn for_rank(
        gpu: &Gpu,
        id: &UniqueId,
        rank: usize,
        ranks: usize,
    ) -> Result<Communicator, Error> {
        let nccl = nccl()?;
        rank_of_ranks("ncclCommInitRank", rank, ranks)?;
        // NCCL takes the device from the CUDA context current on the thread.
        gpu.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // Under NCCL_COMM_BLOCKING=0 NCCL makes it non-blocking: finished in the call,
        // unbounded.
        let made = nccl.comm_init_rank(ranks as i32, id.id, rank as i32)?;
        Ok(Communicator::from_parts(
            made.comms,
            gpu,
            rank,
            ranks,
            nccl,
            None,
            made.non_blocking,
        ))
    }

    /// [`for_rank`](Communicator::for_rank), waiting at most `timeout` for every rank to join:
    /// NCCL initialises the communicator in a thread of its own (`ncclCommInitRankConfig` with
    /// `blocking = 0`) while this call polls it (`ncclCommGetAsyncError`); when the time runs
    /// out first, the unfinished communicator is aborted (`ncclCommAbort`) and the error names
    /// the rank and the timeout. A rank that never starts, or that was given another id or
    /// rank count, then ends every other rank's call instead of hanging it.
    ///
    /// The communicator stays non-blocking, as NCCL has no way to change that: its calls return
    /// `ncclInProgress` and finish in NCCL's threads, and the runtime finishes each call before
    /// returning, so collectives, [`Group`](crate::Group)s, splits and graph capture behave as
    /// with a blocking one, with two differences NCCL makes: the end of every group (a
    /// collective alone is a group) starts a thread of NCCL's, a cost of microseconds per
    /// call; and a group that fails (an argument NCCL refuses, or a call the runtime refuses
    /// after others of the group reached NCCL) leaves the communicator in error, to be
    /// [`abort`](Communicator::abort)ed and made again. It cannot share a
    /// [`Group`](crate::Group) with a blocking communicator.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp, UniqueId};
    /// # let (id, rank, ranks) = (UniqueId::new()?, 0, 2);
    /// let gpu = Gpu::new(rank)?;
    /// let comm = match Communicator::for_rank_timeout(&gpu, &id, rank, ranks, Duration::from_secs(60)) {
    ///     Ok(comm) => comm,
    ///     Err(e) => {
    ///         eprintln!("the job's ranks did not all come: {e}");
    ///         std::process::exit(1);
    ///     }
    /// };
    /// let mut grads = gpu.upload(&[1.0f32; 1024])?;
    /// comm.all_reduce_in_place(&mut grads, &ReduceOp::Sum)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`for_rank`](Communicator::for_rank); [`Error::Collective`] when `timeout` passed
    /// before every rank joined, or for an NCCL older than 2.14 (which has no non-blocking
    /// initialisation).
    pub fn for_rank_timeout(
        gpu: &Gpu,
        id: &UniqueId,
        rank: usize,
        ranks: usize,
        timeout: Duration,
    ) -> Result<Communicator, Error> {
        const CALL: &str = "ncclCommInitRankConfig";
        let started = Instant::now();
        let nccl = nccl()?;
        rank_of_ranks(CALL, rank, ranks)?;
        nccl.require(Optional::CommInitRankConfig)?;
        // NCCL takes the device from the CUDA context current on the thread.
        gpu.context().bind_to_thread().call("cuCtxSetCurrent")?;
        let mut config = Config::non_blocking();
        // A communicator NCCL refused is aborted in the call.
        let comm = nccl.comm_init_rank_config(ranks as i32, id.id, rank as i32, &mut config)?;
        let abort = |comm: ncclComm_t| {
            if !comm.is_null() {
                // SAFETY: the communicator NCCL made here, which nothing else holds; aborting
                // stops its initialisation and frees it.
                let _ = unsafe { nccl.comm_abort(comm) };
            }
        };
        // SAFETY: the communicator NCCL is making, or null.
        let settled = unsafe { nccl.settle(CALL, &[comm], started.checked_add(timeout)) };
        match settled {
            Ok(Settled::Finished) => Ok(Communicator::from_parts(
                comm, gpu, rank, ranks, nccl, None, true,
            )),
            Ok(Settled::TimedOut) => {
                abort(comm);
                Err(Error::Collective {
                    call: CALL,
                    problem: format!(
                        "rank {rank} of {ranks} (device {}): not every rank joined within \
                         {timeout:?}, so the communicator was aborted (a rank never started, \
                         never made this call, or was given another id or rank count, or \
                         could not reach the others)",
                        gpu.ordinal()
                    ),
                })
            }
            Err(e) => {
                abort(comm);
                Err(e)
            }
        }
    }

    /// A communicator NCCL made, on `gpu`'s device and stream; `together`: the ranks made
    /// with it in this process, when known; `non_blocking`: NCCL made it non-blocking.
    pub(crate) fn from_parts(
        comm: ncclComm_t,
        gpu: &Gpu,
        rank: usize,
        ranks: usize,
        nccl: &'static Nccl,
        together: Option<Arc<Together>>,
        non_blocking: bool,
    ) -> Communicator {
        Communicator {
            comm: Arc::new(AtomicPtr::new(comm)),
            abort_requested: Arc::new(AtomicBool::new(false)),
            view: false,
            _one_thread: PhantomData,
            gpu: gpu.clone(),
            rank,
            ranks,
            nccl,
            together,
            non_blocking,
        }
    }

    /// NCCL's communicator; null once aborted (NCCL refuses a null one with
    /// `ncclInvalidArgument`).
    pub(crate) fn raw(&self) -> ncclComm_t {
        self.comm.load(Ordering::Acquire)
    }

    /// `Ok` while the communicator has not been aborted.
    pub(crate) fn live(&self, call: &'static str) -> Result<ncclComm_t, Error> {
        let comm = self.comm.load(Ordering::Acquire);
        if comm.is_null() {
            return Err(Error::Collective {
                call,
                problem: format!(
                    "rank {} of {} was aborted (through its AbortHandle); make a new \
                     communicator",
                    self.rank, self.ranks
                ),
            });
        }
        Ok(comm)
    }

    /// This communicator's rank, from 0.
    ///
    /// ```no_run
    /// # let comms = cuda_kernel_runtime::Communicator::for_gpus(&[cuda_kernel_runtime::Gpu::new(0)?])?;
    /// assert_eq!(comms[0].rank(), 0);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// How many ranks the communicator has.
    ///
    /// ```no_run
    /// # let comms = cuda_kernel_runtime::Communicator::for_gpus(&[cuda_kernel_runtime::Gpu::new(0)?])?;
    /// assert_eq!(comms[0].ranks(), 1);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// The handle whose device this rank is and whose stream its collectives run on.
    ///
    /// ```no_run
    /// # let comms = cuda_kernel_runtime::Communicator::for_gpus(&[cuda_kernel_runtime::Gpu::new(0)?])?;
    /// let gpu = comms[0].gpu();
    /// let x = gpu.upload(&[1u32, 2])?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The version of the NCCL library collectives use, `(major, minor, patch)`; loads it.
    ///
    /// ```no_run
    /// let (major, minor, _) = cuda_kernel_runtime::Communicator::nccl_version()?;
    /// assert!(major >= 2);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::NoNccl`] without the library.
    pub fn nccl_version() -> Result<(u32, u32, u32), Error> {
        nccl()?.version()
    }

    /// NCCL's asynchronous error for this communicator (`ncclCommGetAsyncError`): `Ok` while
    /// it has none. A peer or a connection that failed while collectives were in flight shows
    /// here, not at the call that queued them; the communicator is then of no further use
    /// and is [`abort`](Communicator::abort)ed.
    ///
    /// ```no_run
    /// # let comms = cuda_kernel_runtime::Communicator::for_gpus(&[cuda_kernel_runtime::Gpu::new(0)?])?;
    /// comms[0].async_error()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Nccl`] with NCCL's code, `ncclRemoteError` or `ncclSystemError` say.
    pub fn async_error(&self) -> Result<(), Error> {
        let comm = self.live("ncclCommGetAsyncError")?;
        // SAFETY: a live communicator (this one, not aborted).
        unsafe { self.nccl.comm_get_async_error(comm) }
    }

    /// Waits at most `timeout` for the work queued on this rank's stream (its collectives,
    /// and the kernels and copies queued there before them), watching NCCL's asynchronous
    /// error meanwhile. A collective waits on the device for every rank to join it; one whose
    /// peer never comes ends the wait here with an error, where
    /// [`Gpu::synchronize`](crate::Gpu::synchronize) would wait forever. The communicator
    /// should then be [`abort`](Communicator::abort)ed: NCCL cannot finish or cancel a
    /// collective.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp, UniqueId};
    /// # let (id, rank, ranks) = (UniqueId::new()?, 0, 2);
    /// let gpu = Gpu::new(rank)?;
    /// let comm = Communicator::for_rank(&gpu, &id, rank, ranks)?;
    /// let mut grads = gpu.upload(&[1.0f32; 1024])?;
    /// comm.all_reduce_in_place(&mut grads, &ReduceOp::Sum)?;
    /// if let Err(e) = comm.wait(Duration::from_secs(60)) {
    ///     eprintln!("giving up on the other ranks: {e}");
    ///     comm.abort()?;
    /// }
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Collective`] when the time runs out; [`Error::Nccl`] for an asynchronous
    /// error; [`Error::Driver`] when the device failed.
    pub fn wait(&self, timeout: Duration) -> Result<(), Error> {
        let start = Instant::now();
        self.gpu
            .context()
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        let done = self.gpu.stream().record_event(None).call("cuEventRecord")?;
        let mut pause = Duration::from_micros(10);
        loop {
            if self.abort_requested.load(Ordering::Acquire) {
                self.abort_now()?;
                return Err(Error::Collective {
                    call: "Communicator::wait",
                    problem: format!(
                        "rank {} of {} (device {}) was aborted through its AbortHandle while \
                         waiting",
                        self.rank,
                        self.ranks,
                        self.gpu.ordinal()
                    ),
                });
            }
            let complete = done.try_is_complete().call("cuEventQuery")?;
            // Checked after the stream drained too: an error NCCL found meanwhile (a peer
            // that failed after this rank's last kernel) still makes the wait fail.
            self.async_error()?;
            if complete {
                return Ok(());
            }
            let waited = start.elapsed();
            if waited >= timeout {
                return Err(Error::Collective {
                    call: "Communicator::wait",
                    problem: format!(
                        "the work queued on rank {} of {} (device {}) did not finish within \
                         {timeout:?}: a collective waits until every rank has joined it, so \
                         one rank may never have made the matching call; `abort` ends it",
                        self.rank,
                        self.ranks,
                        self.gpu.ordinal()
                    ),
                });
            }
            std::thread::sleep(pause.min(timeout - waited));
            pause = (pause * 2).min(Duration::from_millis(1));
        }
    }

    /// Aborts the communicator (`ncclCommAbort`): collectives that have not finished end
    /// without their results (what they write is left undefined), the stream is free for
    /// other work again, and the communicator is gone. For a rank whose peers will not come,
    /// after [`wait`](Communicator::wait) timed out or [`async_error`](Communicator::async_error)
    /// reported one; each remaining rank aborts its own, and the program may then make new
    /// communicators.
    ///
    /// ```no_run
    /// # let comms = cuda_kernel_runtime::Communicator::for_gpus(&[cuda_kernel_runtime::Gpu::new(0)?])?;
    /// for comm in comms {
    ///     comm.abort()?;
    /// }
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Nccl`] when NCCL fails; the communicator is gone all the same.
    pub fn abort(self) -> Result<(), Error> {
        self.abort_now()
    }

    /// Aborts the communicator now, if it still lives; the drop then does nothing.
    fn abort_now(&self) -> Result<(), Error> {
        if self.view {
            return Err(Error::Collective {
                call: "ncclCommAbort",
                problem: "a communicator on another stream (`on_stream`) cannot abort the \
                          communicator it was made from; abort that one"
                    .to_owned(),
            });
        }
        let comm = self.comm.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if comm.is_null() {
            return Ok(());
        }
        let _ = self.gpu.context().bind_to_thread();
        // SAFETY: a live communicator, aborted once (the cell is null from now on).
        unsafe { self.nccl.comm_abort(comm) }
    }

    /// A handle another thread (a watchdog) uses to abort this rank: after
    /// [`AbortHandle::abort`], the rank's [`wait`](Communicator::wait), running or next,
    /// aborts the communicator (`ncclCommAbort`, which frees its stream) within about a
    /// millisecond and returns an error, and every later call on it is refused. The
    /// communicator itself stays with its thread (NCCL allows one call on it at a time); a
    /// thread that waits for a rank's collectives with [`wait`](Communicator::wait) rather than
    /// [`Gpu::synchronize`](crate::Gpu::synchronize) can be released this way.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp, UniqueId};
    /// # let (id, rank, ranks) = (UniqueId::new()?, 0, 2);
    /// let gpu = Gpu::new(rank)?;
    /// let comm = Communicator::for_rank(&gpu, &id, rank, ranks)?;
    /// let handle = comm.abort_handle();
    /// // A watchdog that gives up on the job after ten minutes.
    /// std::thread::spawn(move || {
    ///     std::thread::sleep(Duration::from_secs(600));
    ///     handle.abort();
    /// });
    /// let mut grads = gpu.upload(&[1.0f32; 1024])?;
    /// comm.all_reduce_in_place(&mut grads, &ReduceOp::Sum)?;
    /// comm.wait(Duration::MAX)?; // an error if the watchdog aborted the rank meanwhile
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle {
            requested: self.abort_requested.clone(),
        }
    }

    /// Makes this rank's collectives run on `stream` (of the same device) from now on; the
    /// stream first waits for what was queued on the previous one. Communicators made from
    /// [`Gpu::with_stream`](crate::Gpu::with_stream) handles run on those streams from the
    /// start. A collective on a stream of its own overlaps compute on another: the buffers'
    /// uses order what must be ordered (a collective waits for the kernel writing its input,
    /// a kernel reading its output waits for it), and nothing else.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp};
    /// let gpus = (0..Gpu::count()?).map(Gpu::new).collect::<Result<Vec<_>, _>>()?;
    /// // Collectives on a stream of each GPU's own; kernels stay on the default streams.
    /// let comm_gpus = gpus
    ///     .iter()
    ///     .map(|g| Ok(g.with_stream(&g.new_stream()?)))
    ///     .collect::<Result<Vec<_>, cuda_kernel_runtime::Error>>()?;
    /// let mut comms = Communicator::for_gpus(&comm_gpus)?;
    /// // or later, for one rank:
    /// let side = gpus[0].new_stream()?;
    /// comms[0].set_stream(&side)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ForeignContext`] for a stream of another device; [`Error::Driver`] when the
    /// wait cannot be queued.
    pub fn set_stream(&mut self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        if stream.context().cu_ctx() != self.gpu.context().cu_ctx() {
            return Err(Error::ForeignContext {
                what: "the stream",
                user: "communicator's rank",
            });
        }
        join(stream, self.gpu.stream())?;
        self.gpu = self.gpu.with_stream(stream);
        Ok(())
    }

    /// This rank with its collectives on `stream` (of the same device), for the calls made
    /// through what it returns (a [`Communicator`] by `Deref`, in a [`Group`](crate::Group)
    /// too): a per-call stream. Nothing orders `stream` after this rank's own stream; the
    /// buffers' uses order the collectives with the work on their buffers, as everywhere.
    /// Inside [`Gpu::capture`](crate::Gpu::capture) it puts collectives into the graph: pass
    /// the capturing handle's stream. The view can neither
    /// [`abort`](Communicator::abort) nor destroy the communicator.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp, UniqueId};
    /// # let (id, rank, ranks) = (UniqueId::new()?, 0, 2);
    /// let gpu = Gpu::new(rank)?;
    /// let comm = Communicator::for_rank(&gpu, &id, rank, ranks)?;
    /// let mut grads = gpu.upload(&[1.0f32; 1024])?;
    /// comm.all_reduce_in_place(&mut grads, &ReduceOp::Sum)?; // once, eagerly: NCCL connects
    /// // A step captured once, replayed many times: kernels and the all-reduce in one graph.
    /// let step = gpu.capture(|g| {
    ///     comm.on_stream(g.stream())?.all_reduce_in_place(&mut grads, &ReduceOp::Sum)
    /// })?;
    /// for _ in 0..100 {
    ///     step.launch()?;
    /// }
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ForeignContext`] for a stream of another device.
    pub fn on_stream(&self, stream: &Arc<CudaStream>) -> Result<OnStream<'_>, Error> {
        if stream.context().cu_ctx() != self.gpu.context().cu_ctx() {
            return Err(Error::ForeignContext {
                what: "the stream",
                user: "communicator's rank",
            });
        }
        Ok(OnStream {
            view: Communicator {
                comm: self.comm.clone(),
                abort_requested: Arc::new(AtomicBool::new(false)),
                view: true,
                _one_thread: PhantomData,
                gpu: self.gpu.with_stream(stream),
                rank: self.rank,
                ranks: self.ranks,
                nccl: self.nccl,
                together: self.together.clone(),
                non_blocking: self.non_blocking,
            },
            _of: std::marker::PhantomData,
        })
    }
}

/// A [`Communicator`] whose collectives run on another stream, from
/// [`Communicator::on_stream`]; it derefs to a `Communicator` and lives no longer than the one
/// it was made from.
///
/// ```no_run
/// # use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp};
/// # let gpu = Gpu::new(0)?;
/// # let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
/// let side = gpu.new_stream()?;
/// let mut x = gpu.upload(&[2.0f32; 64])?;
/// comms[0].on_stream(&side)?.all_reduce_in_place(&mut x, &ReduceOp::Sum)?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct OnStream<'c> {
    view: Communicator,
    _of: std::marker::PhantomData<&'c Communicator>,
}

impl std::ops::Deref for OnStream<'_> {
    type Target = Communicator;

    fn deref(&self) -> &Communicator {
        &self.view
    }
}

impl std::fmt::Debug for OnStream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("OnStream").field(&self.view).finish()
    }
}

/// `Ok` when `rank` is a rank of `ranks` and NCCL can count them.
fn rank_of_ranks(call: &'static str, rank: usize, ranks: usize) -> Result<(), Error> {
    if rank >= ranks || i32::try_from(ranks).is_err() {
        return Err(Error::Collective {
            call,
            problem: format!("rank {rank} of a communicator of {ranks} rank(s)"),
        });
    }
    Ok(())
}

/// Aborts a [`Communicator`] from another thread (a watchdog): `Send`, `Sync` and `Clone`, from
/// [`Communicator::abort_handle`]. The abort happens in the rank's own
/// [`wait`](Communicator::wait), running or next.
///
/// ```no_run
/// # let comms = cuda_kernel_runtime::Communicator::for_gpus(&[cuda_kernel_runtime::Gpu::new(0)?])?;
/// let handle = comms[0].abort_handle();
/// std::thread::spawn(move || handle.abort()).join().unwrap();
/// assert!(comms[0].wait(std::time::Duration::from_secs(1)).is_err());
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct AbortHandle {
    requested: Arc<AtomicBool>,
}

impl AbortHandle {
    /// Asks for the rank to be aborted; returns at once.
    ///
    /// ```no_run
    /// # let comms = cuda_kernel_runtime::Communicator::for_gpus(&[cuda_kernel_runtime::Gpu::new(0)?])?;
    /// comms[0].abort_handle().abort();
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn abort(&self) {
        self.requested.store(true, Ordering::Release);
    }

    /// Whether [`abort`](AbortHandle::abort) was called.
    ///
    /// ```no_run
    /// # let comms = cuda_kernel_runtime::Communicator::for_gpus(&[cuda_kernel_runtime::Gpu::new(0)?])?;
    /// let handle = comms[0].abort_handle();
    /// assert!(!handle.is_requested());
    /// handle.abort();
    /// assert!(handle.is_requested());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn is_requested(&self) -> bool {
        self.requested.load(Ordering::Acquire)
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        if self.view || self.comm.load(Ordering::Acquire).is_null() {
            return; // aborted
        }
        // Errors cannot be returned from here. What was queued finishes first, unless NCCL
        // reports an asynchronous error meanwhile: then nothing queued can finish, and the
        // communicator is aborted rather than waited for (`ncclCommDestroy` would refuse it,
        // and leave NCCL's group open on this thread). While the thread unwinds from a panic
        // nothing is waited for either: a rank left waiting for a peer would never get there.
        let finished = !std::thread::panicking() && self.wait(Duration::MAX).is_ok();
        // The wait aborts the communicator itself when an abort handle asked for it.
        let comm = self.comm.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if comm.is_null() {
            return;
        }
        // SAFETY: a live communicator, destroyed or aborted once.
        let _ = unsafe {
            if finished {
                self.nccl.comm_destroy(comm)
            } else {
                self.nccl.comm_abort(comm)
            }
        };
    }
}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Communicator")
            .field("rank", &self.rank)
            .field("ranks", &self.ranks)
            .field("device", &self.gpu.ordinal())
            .finish_non_exhaustive()
    }
}

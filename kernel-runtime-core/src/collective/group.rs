//! [`Group`]: NCCL calls between `ncclGroupStart` and `ncclGroupEnd`, and every collective of
//! the runtime. Each collective orders its buffers on the communicator's stream as a launch
//! does: before the NCCL call the stream waits for the uses the collective must follow
//! (`prepare_read`/`prepare_write` of the buffer's kind); the uses are recorded only once
//! `ncclGroupEnd` has queued the work, since NCCL queues a group's kernels there and a use
//! recorded earlier could be taken as covered by an event recorded before them.

use std::cell::Cell;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::CudaStream;
use cudarc::nccl::ReduceOp;
use cudarc::nccl::sys::{cudaStream_t, ncclComm_t, ncclRedOp_t};

use crate::collective::communicator::Communicator;
use crate::collective::element::NcclElement;
use crate::collective::nccl::{Nccl, nccl};
use crate::collective::serial::{self, Members};
use crate::driver::last_launch;
use crate::error::{DriverResultExt, Error};
use crate::memory::device_memory::{DeviceMemory, DeviceMemoryMut};
use crate::memory::peer::join;
use crate::memory::prepared::PreparedBuffer;

/// What a kernel fault's error names when the last work this thread queued was NCCL's.
static NCCL_KERNELS: &str = "the NCCL kernels of this thread's last collective";

/// NCCL calls queued together (`ncclGroupStart` ... `ncclGroupEnd`): the collectives of
/// several GPUs driven by one thread (which must be grouped), or several collectives and
/// sends and receives that NCCL may fuse or must pair (a send and a receive between two
/// ranks). Nothing runs until [`end`](Group::end); dropping the group ends it too, without
/// the error. The buffers stay borrowed until then.
///
/// That holds for views too: a view made in the call (`&mut x.slice_mut(..)`) is a temporary
/// that dies at the end of its statement while the group still borrows it, and rustc refuses
/// it (E0716, "temporary value dropped while borrowed ... consider using a `let` binding"):
///
/// ```compile_fail,E0716
/// use cuda_kernel_runtime::{Communicator, Gpu, Group, ReduceOp};
/// let gpu = Gpu::new(0)?;
/// let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
/// let (x, mut y) = (gpu.upload(&[1.0f32; 1024])?, gpu.zeros::<f32>(512)?);
/// let mut group = Group::start()?;
/// group.all_reduce(&comms[0], &x.slice(0..512), &mut y, &ReduceOp::Sum)?;
/// group.end()?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
///
/// Make the views first, in `let`s (or a `Vec`, one per rank) that outlive the group; a
/// collective called alone on the [`Communicator`] takes a temporary view as it is:
///
/// ```no_run
/// use cuda_kernel_runtime::{Communicator, Gpu, Group, ReduceOp};
/// let gpu = Gpu::new(0)?;
/// let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
/// let (mut x, mut y) = (gpu.upload(&[1.0f32; 1024])?, gpu.zeros::<f32>(512)?);
/// {
///     let head = x.slice(0..512);
///     let mut group = Group::start()?;
///     group.all_reduce(&comms[0], &head, &mut y, &ReduceOp::Sum)?;
///     group.end()?;
/// }
/// comms[0].all_reduce_in_place(&mut x.slice_mut(0..256), &ReduceOp::Sum)?; // alone: fine
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
///
/// ```no_run
/// use cuda_kernel_runtime::{Communicator, Gpu, Group};
/// let gpus = vec![Gpu::new(0)?, Gpu::new(1)?];
/// let comms = Communicator::for_gpus(&gpus)?;
/// let (mut a, mut b) = (gpus[0].upload(&[1.0f32; 8])?, gpus[1].zeros::<f32>(8)?);
/// // Rank 0 sends to rank 1: the pair goes in one group.
/// let mut group = Group::start()?;
/// group.send(&comms[0], &a, 1)?;
/// group.recv(&comms[1], &mut b, 0)?;
/// group.end()?;
/// assert_eq!(gpus[1].download(&b)?, [1.0; 8]);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct Group<'a> {
    nccl: &'static Nccl,
    uses: Vec<Use<'a>>,
    ended: bool,
    /// A collective was begun and failed before NCCL took it (a length, a device, a rank):
    /// ending the group must then make NCCL drop it whole, or the ranks queued before would
    /// wait forever for this one.
    unqueued: bool,
    /// The ranks used, to tell whether the group is whole (`serial`).
    members: Members,
    /// The communicators whose calls reached NCCL, each once: NCCL's group, which the end
    /// waits for when NCCL leaves it in progress (non-blocking communicators).
    comms: Vec<ncclComm_t>,
    /// Whether the communicators used are non-blocking (NCCL refuses a mix).
    non_blocking: Option<bool>,
    /// NCCL's group is the calling thread's: the guard stays on it.
    _thread: PhantomData<*const ()>,
}

/// A buffer's use by a queued collective, recorded once the group has ended.
struct Use<'a> {
    prepared: PreparedBuffer<'a>,
    /// The communicator's stream.
    stream: &'a Arc<CudaStream>,
    /// The stream cudarc's buffers were made on: it waits for the collective afterwards.
    own: Option<Arc<CudaStream>>,
}

impl<'a> Group<'a> {
    /// Starts a group (`ncclGroupStart`).
    ///
    /// ```no_run
    /// let group = cuda_kernel_runtime::Group::start()?;
    /// group.end()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::NoNccl`] without the library; [`Error::Nccl`] when NCCL fails.
    pub fn start() -> Result<Group<'a>, Error> {
        if OPEN.with(Cell::get) {
            // NCCL's groups nest per thread and only the outermost end queues the work: an
            // inner group would return with its buffers released but its work not queued.
            return Err(Error::Collective {
                call: "ncclGroupStart",
                problem: "a group is already open on this thread (a collective or a group \
                          inside a group, or a group that was leaked): end it first"
                    .to_owned(),
            });
        }
        let nccl = nccl()?;
        nccl.group_start()?;
        OPEN.with(|open| open.set(true));
        Ok(Group {
            nccl,
            uses: Vec::new(),
            ended: false,
            unqueued: false,
            members: Members::default(),
            comms: Vec::new(),
            non_blocking: None,
            _thread: PhantomData,
        })
    }

    /// Ends the group (`ncclGroupEnd`): NCCL queues its work on the communicators' streams,
    /// and the buffers record their uses, so that later work on other streams waits for it.
    /// Returns once queued, without waiting for the work.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, Group, ReduceOp};
    /// let gpu = Gpu::new(0)?;
    /// let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
    /// let mut x = gpu.upload(&[2i32; 4])?;
    /// let mut group = Group::start()?;
    /// group.all_reduce_in_place(&comms[0], &mut x, &ReduceOp::Max)?;
    /// group.end()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Nccl`] when NCCL fails to queue the work (its uses are recorded anyway,
    /// which only orders more than needed).
    pub fn end(mut self) -> Result<(), Error> {
        self.close()
    }

    fn close(&mut self) -> Result<(), Error> {
        if std::mem::replace(&mut self.ended, true) {
            return Ok(());
        }
        let first = self.comms.first().copied();
        if let Some(comm) = first.filter(|_| std::mem::take(&mut self.unqueued)) {
            // A collective was refused before NCCL took it: NCCL is made to drop every
            // collective of the group at the end instead of queueing some ranks only, told
            // through a communicator already in NCCL's group (when none is, there is nothing
            // to drop).
            // SAFETY: a live communicator of this group, whose call is in it.
            unsafe { self.nccl.fail_group(comm) };
        }
        // A group of every rank of its communicators queues its kernels on all their devices
        // before another such group of any thread queues (`serial`).
        let guard = self.members.whole().then(serial::lock);
        // The group started in `start`, on this thread. Non-blocking communicators' work is
        // queued by NCCL's thread: finished in the call, under the lock still, before the
        // uses are recorded.
        // SAFETY: the communicators of this group's calls, live while it borrows them.
        let ended = unsafe { self.nccl.group_end(&self.comms) };
        OPEN.with(|open| open.set(false));
        drop(guard);
        if ended.is_ok() && !self.uses.is_empty() {
            // A fault reported later names NCCL's kernels, not the kernel launched before them.
            last_launch::record_kernel(&NCCL_KERNELS);
        }
        let mut recorded = Ok(());
        for used in self.uses.drain(..) {
            let done = used
                .prepared
                .finish(used.stream)
                .and_then(|()| match &used.own {
                    Some(own) => join(own, used.stream),
                    None => Ok(()),
                });
            recorded = recorded.and(done);
        }
        ended.and(recorded)
    }

    /// Checks that `memory` is of `comm`'s device, makes the stream wait for cudarc's
    /// buffer's own stream, and remembers the use.
    fn uses_on(
        &mut self,
        comm: &'a Communicator,
        ctx: &Arc<cudarc::driver::CudaContext>,
        own: Option<&Arc<CudaStream>>,
    ) -> Result<&'a Arc<CudaStream>, Error> {
        self.members
            .note(comm.together.as_ref(), comm.ranks(), comm.rank());
        comm.live("a collective")?;
        match self.non_blocking {
            Some(non_blocking) if non_blocking != comm.non_blocking => {
                return Err(Error::Collective {
                    call: "a collective",
                    problem: format!(
                        "rank {} of {} is a {} communicator and the group already holds a {} \
                         one: NCCL refuses blocking and non-blocking (`for_rank_timeout`) \
                         communicators in one group; use a group for each",
                        comm.rank(),
                        comm.ranks(),
                        kind(comm.non_blocking),
                        kind(non_blocking)
                    ),
                });
            }
            _ => self.non_blocking = Some(comm.non_blocking),
        }
        if ctx.cu_ctx() != comm.gpu.context().cu_ctx() {
            return Err(Error::ForeignContext {
                what: "a collective's buffer",
                user: "communicator's rank",
            });
        }
        let stream = comm.gpu.stream();
        if let Some(own) = own {
            join(stream, own)?;
        }
        Ok(stream)
    }

    /// Prepares a read of `src` on `comm`'s stream; its address.
    fn read<T, S: DeviceMemory<T> + ?Sized>(
        &mut self,
        comm: &'a Communicator,
        src: &'a S,
    ) -> Result<*const c_void, Error> {
        let own = src.own_stream().cloned();
        let stream = self.uses_on(comm, src.context(), own.as_ref())?;
        comm.gpu
            .context()
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        let prepared = src.prepare_read(stream)?;
        let addr = prepared.addr() as *const c_void;
        self.uses.push(Use {
            prepared,
            stream,
            own,
        });
        Ok(addr)
    }

    /// Prepares a write of `dst` on `comm`'s stream; its address.
    fn write<T, D: DeviceMemoryMut<T> + ?Sized>(
        &mut self,
        comm: &'a Communicator,
        dst: &'a mut D,
    ) -> Result<*mut c_void, Error> {
        let own = dst.own_stream().cloned();
        let stream = self.uses_on(comm, dst.context(), own.as_ref())?;
        comm.gpu
            .context()
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        let prepared = dst.prepare_write(stream)?;
        let addr = prepared.addr() as *mut c_void;
        self.uses.push(Use {
            prepared,
            stream,
            own,
        });
        Ok(addr)
    }

    /// Sum, product, maximum, minimum or average of `src` over every rank into `dst`
    /// (`ncclAllReduce`; same lengths).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, Group, ReduceOp};
    /// let gpu = Gpu::new(0)?;
    /// let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
    /// let (x, mut sum) = (gpu.upload(&[1.5f32; 4])?, gpu.zeros::<f32>(4)?);
    /// let mut group = Group::start()?;
    /// group.all_reduce(&comms[0], &x, &mut sum, &ReduceOp::Sum)?;
    /// group.end()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`]; [`Error::ForeignContext`] for a buffer of another device;
    /// [`Error::Nccl`].
    pub fn all_reduce<T: NcclElement, S, D>(
        &mut self,
        comm: &'a Communicator,
        src: &'a S,
        dst: &'a mut D,
        op: &ReduceOp,
    ) -> Result<(), Error>
    where
        S: DeviceMemory<T> + ?Sized,
        D: DeviceMemoryMut<T> + ?Sized,
    {
        self.unqueued = true;
        same_len("ncclAllReduce", src.len(), dst.len())?;
        let count = dst.len();
        let s = self.read(comm, src)?;
        let d = self.write(comm, dst)?;
        // SAFETY: both buffers hold `count` values of T, of the communicator's device, and stay
        // borrowed until the group ends.
        let queued = unsafe {
            comm.nccl
                .all_reduce(s, d, count, T::DATA_TYPE, red_op(op), comm.raw(), on(comm))
        };
        self.queued(comm, queued)
    }

    /// [`all_reduce`](Group::all_reduce) with `buffer` both source and destination.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, Group, ReduceOp};
    /// let gpu = Gpu::new(0)?;
    /// let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
    /// let mut x = gpu.upload(&[3u64; 4])?;
    /// let mut group = Group::start()?;
    /// group.all_reduce_in_place(&comms[0], &mut x, &ReduceOp::Sum)?;
    /// group.end()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`all_reduce`](Group::all_reduce).
    pub fn all_reduce_in_place<T: NcclElement, D: DeviceMemoryMut<T> + ?Sized>(
        &mut self,
        comm: &'a Communicator,
        buffer: &'a mut D,
        op: &ReduceOp,
    ) -> Result<(), Error> {
        self.unqueued = true;
        let count = buffer.len();
        let d = self.write(comm, buffer)?;
        // SAFETY: as in `all_reduce`, with one buffer (NCCL allows in place).
        let queued = unsafe {
            comm.nccl
                .all_reduce(d, d, count, T::DATA_TYPE, red_op(op), comm.raw(), on(comm))
        };
        self.queued(comm, queued)
    }

    /// Copies `src` of rank `root` into `dst` on every rank (`ncclBroadcast`): `src` is
    /// `Some` (as long as `dst`) on the root and ignored elsewhere, where a plain `None`
    /// compiles (the source is taken as `dyn DeviceMemory<T>`, so `None` needs no type; a
    /// variable of type `Option<&TrackedBuffer<T>>` is passed as `x.map(|b| b as _)`).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, Group, TrackedBuffer};
    /// let gpu = Gpu::new(0)?;
    /// let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
    /// let (w, mut copy) = (gpu.upload(&[0.25f64; 4])?, gpu.zeros::<f64>(4)?);
    /// let mut group = Group::start()?;
    /// group.broadcast(&comms[0], Some(&w), &mut copy, 0)?;
    /// group.end()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Collective`] when `root` is not a rank or the root has no `src`;
    /// [`Error::LengthMismatch`]; as [`all_reduce`](Group::all_reduce).
    pub fn broadcast<T: NcclElement, D>(
        &mut self,
        comm: &'a Communicator,
        src: Option<&'a (dyn DeviceMemory<T> + 'a)>,
        dst: &'a mut D,
        root: usize,
    ) -> Result<(), Error>
    where
        D: DeviceMemoryMut<T> + ?Sized,
    {
        self.unqueued = true;
        rank_of("ncclBroadcast", "root", root, comm)?;
        let count = dst.len();
        let s = match src {
            Some(src) if comm.rank() == root => {
                same_len("ncclBroadcast", src.len(), count)?;
                self.read(comm, src)?
            }
            _ if comm.rank() == root => return Err(needs("ncclBroadcast", "a source", root)),
            _ => std::ptr::null(),
        };
        let d = self.write(comm, dst)?;
        // SAFETY: `dst` (and the root's `src`) hold `count` values, borrowed until the end.
        let queued = unsafe {
            comm.nccl
                .broadcast(s, d, count, T::DATA_TYPE, root as i32, comm.raw(), on(comm))
        };
        self.queued(comm, queued)
    }

    /// [`broadcast`](Group::broadcast) in place: the root's `buffer` is copied into every
    /// other rank's.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, Group};
    /// let gpu = Gpu::new(0)?;
    /// let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
    /// let mut w = gpu.upload(&[1u8; 16])?;
    /// let mut group = Group::start()?;
    /// group.broadcast_in_place(&comms[0], &mut w, 0)?;
    /// group.end()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`broadcast`](Group::broadcast).
    pub fn broadcast_in_place<T: NcclElement, D: DeviceMemoryMut<T> + ?Sized>(
        &mut self,
        comm: &'a Communicator,
        buffer: &'a mut D,
        root: usize,
    ) -> Result<(), Error> {
        self.unqueued = true;
        rank_of("ncclBroadcast", "root", root, comm)?;
        let count = buffer.len();
        let d = self.write(comm, buffer)?;
        // SAFETY: as in `broadcast`, with one buffer.
        let queued = unsafe {
            comm.nccl
                .broadcast(d, d, count, T::DATA_TYPE, root as i32, comm.raw(), on(comm))
        };
        self.queued(comm, queued)
    }

    /// Reduces `src` over every rank into `dst` of rank `root` (`ncclReduce`): `dst` is
    /// `Some` (as long as `src`) on the root and ignored elsewhere, where a plain `None`
    /// compiles (the destination is taken as `dyn DeviceMemoryMut<T>`).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, Group, ReduceOp, TrackedBuffer};
    /// let gpu = Gpu::new(0)?;
    /// let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
    /// let (x, mut min) = (gpu.upload(&[5i8; 4])?, gpu.zeros::<i8>(4)?);
    /// let mut group = Group::start()?;
    /// group.reduce(&comms[0], &x, Some(&mut min), &ReduceOp::Min, 0)?;
    /// group.end()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Collective`] when `root` is not a rank or the root has no `dst`; as
    /// [`all_reduce`](Group::all_reduce).
    pub fn reduce<'b: 'a, T: NcclElement, S>(
        &mut self,
        comm: &'a Communicator,
        src: &'a S,
        dst: Option<&'a mut (dyn DeviceMemoryMut<T> + 'b)>,
        op: &ReduceOp,
        root: usize,
    ) -> Result<(), Error>
    where
        S: DeviceMemory<T> + ?Sized,
    {
        self.unqueued = true;
        rank_of("ncclReduce", "root", root, comm)?;
        let count = src.len();
        let d = match dst {
            Some(dst) if comm.rank() == root => {
                same_len("ncclReduce", count, dst.len())?;
                self.write(comm, dst)?
            }
            _ if comm.rank() == root => return Err(needs("ncclReduce", "a destination", root)),
            _ => std::ptr::null_mut(),
        };
        let s = self.read(comm, src)?;
        // SAFETY: `src` (and the root's `dst`) hold `count` values, borrowed until the end.
        let queued = unsafe {
            comm.nccl.reduce(
                s,
                d,
                count,
                T::DATA_TYPE,
                red_op(op),
                root as i32,
                comm.raw(),
                on(comm),
            )
        };
        self.queued(comm, queued)
    }

    /// Gathers every rank's `src` into `dst`, in rank order, on every rank
    /// (`ncclAllGather`): `dst` holds `ranks()` times as many values as `src`.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, Group};
    /// let gpu = Gpu::new(0)?;
    /// let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
    /// let (part, mut all) = (gpu.upload(&[1u32; 4])?, gpu.zeros::<u32>(4 * comms[0].ranks())?);
    /// let mut group = Group::start()?;
    /// group.all_gather(&comms[0], &part, &mut all)?;
    /// group.end()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Collective`] when `dst` is not `ranks()` times `src`; as
    /// [`all_reduce`](Group::all_reduce).
    pub fn all_gather<T: NcclElement, S, D>(
        &mut self,
        comm: &'a Communicator,
        src: &'a S,
        dst: &'a mut D,
    ) -> Result<(), Error>
    where
        S: DeviceMemory<T> + ?Sized,
        D: DeviceMemoryMut<T> + ?Sized,
    {
        self.unqueued = true;
        let count = src.len();
        per_rank(
            "ncclAllGather",
            "destination",
            dst.len(),
            "source",
            count,
            comm,
        )?;
        let s = self.read(comm, src)?;
        let d = self.write(comm, dst)?;
        // SAFETY: `src` holds `count` values and `dst` `ranks * count`, borrowed until the end.
        let queued = unsafe {
            comm.nccl
                .all_gather(s, d, count, T::DATA_TYPE, comm.raw(), on(comm))
        };
        self.queued(comm, queued)
    }

    /// Reduces `src` over every rank and leaves block `rank()` of the result in `dst`
    /// (`ncclReduceScatter`): `src` holds `ranks()` times as many values as `dst`.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, Group, ReduceOp};
    /// let gpu = Gpu::new(0)?;
    /// let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
    /// let n = comms[0].ranks();
    /// let (all, mut mine) = (gpu.upload(&vec![1.0f32; 4 * n])?, gpu.zeros::<f32>(4)?);
    /// let mut group = Group::start()?;
    /// group.reduce_scatter(&comms[0], &all, &mut mine, &ReduceOp::Sum)?;
    /// group.end()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Collective`] when `src` is not `ranks()` times `dst`; as
    /// [`all_reduce`](Group::all_reduce).
    pub fn reduce_scatter<T: NcclElement, S, D>(
        &mut self,
        comm: &'a Communicator,
        src: &'a S,
        dst: &'a mut D,
        op: &ReduceOp,
    ) -> Result<(), Error>
    where
        S: DeviceMemory<T> + ?Sized,
        D: DeviceMemoryMut<T> + ?Sized,
    {
        self.unqueued = true;
        let count = dst.len();
        per_rank(
            "ncclReduceScatter",
            "source",
            src.len(),
            "destination",
            count,
            comm,
        )?;
        let s = self.read(comm, src)?;
        let d = self.write(comm, dst)?;
        // SAFETY: `dst` holds `count` values and `src` `ranks * count`, borrowed until the end.
        let queued = unsafe {
            comm.nccl
                .reduce_scatter(s, d, count, T::DATA_TYPE, red_op(op), comm.raw(), on(comm))
        };
        self.queued(comm, queued)
    }

    /// Sends `src` to rank `peer` (`ncclSend`), which receives as many values with
    /// [`recv`](Group::recv).
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{Communicator, Gpu, Group};
    /// # let gpus = vec![Gpu::new(0)?, Gpu::new(1)?];
    /// # let comms = Communicator::for_gpus(&gpus)?;
    /// let (x, mut y) = (gpus[0].upload(&[9u8; 4])?, gpus[1].zeros::<u8>(4)?);
    /// let mut group = Group::start()?;
    /// group.send(&comms[0], &x, 1)?;
    /// group.recv(&comms[1], &mut y, 0)?;
    /// group.end()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Collective`] when `peer` is not a rank; as [`all_reduce`](Group::all_reduce).
    pub fn send<T: NcclElement, S: DeviceMemory<T> + ?Sized>(
        &mut self,
        comm: &'a Communicator,
        src: &'a S,
        peer: usize,
    ) -> Result<(), Error> {
        self.unqueued = true;
        rank_of("ncclSend", "peer", peer, comm)?;
        let count = src.len();
        let s = self.read(comm, src)?;
        // SAFETY: `src` holds `count` values, borrowed until the end.
        let queued = unsafe {
            comm.nccl
                .send(s, count, T::DATA_TYPE, peer as i32, comm.raw(), on(comm))
        };
        self.queued(comm, queued)
    }

    /// Receives `dst.len()` values from rank `peer` into `dst` (`ncclRecv`).
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{Communicator, Gpu, Group};
    /// # let gpus = vec![Gpu::new(0)?, Gpu::new(1)?];
    /// # let comms = Communicator::for_gpus(&gpus)?;
    /// let (x, mut y) = (gpus[1].upload(&[1i64; 4])?, gpus[0].zeros::<i64>(4)?);
    /// let mut group = Group::start()?;
    /// group.recv(&comms[0], &mut y, 1)?;
    /// group.send(&comms[1], &x, 0)?;
    /// group.end()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Collective`] when `peer` is not a rank; as [`all_reduce`](Group::all_reduce).
    pub fn recv<T: NcclElement, D: DeviceMemoryMut<T> + ?Sized>(
        &mut self,
        comm: &'a Communicator,
        dst: &'a mut D,
        peer: usize,
    ) -> Result<(), Error> {
        self.unqueued = true;
        rank_of("ncclRecv", "peer", peer, comm)?;
        let count = dst.len();
        let d = self.write(comm, dst)?;
        // SAFETY: `dst` holds `count` values, borrowed until the end.
        let queued = unsafe {
            comm.nccl
                .recv(d, count, T::DATA_TYPE, peer as i32, comm.raw(), on(comm))
        };
        self.queued(comm, queued)
    }
}

impl Group<'_> {
    /// The collective begun on `comm` reached NCCL (NCCL itself marks the group failed when
    /// it refuses it): nothing to drop at the end on its account, and `comm` is in NCCL's
    /// group.
    fn queued(&mut self, comm: &Communicator, result: Result<(), Error>) -> Result<(), Error> {
        self.unqueued = false;
        let raw = comm.raw();
        if !self.comms.contains(&raw) {
            self.comms.push(raw);
        }
        result
    }
}

thread_local! {
    /// Whether a group is open on this thread (between `ncclGroupStart` and its end).
    static OPEN: Cell<bool> = const { Cell::new(false) };
}

/// Whether a [`Group`] is open on this thread: NCCL would defer a call made now to its end.
pub(crate) fn open_on_this_thread() -> bool {
    OPEN.with(Cell::get)
}

impl Drop for Group<'_> {
    fn drop(&mut self) {
        // Errors cannot be returned from here; `end` returns them.
        let _ = self.close();
    }
}

impl std::fmt::Debug for Group<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group")
            .field("queued_buffer_uses", &self.uses.len())
            .finish_non_exhaustive()
    }
}

/// How a communicator's kind is named in errors.
fn kind(non_blocking: bool) -> &'static str {
    if non_blocking {
        "non-blocking"
    } else {
        "blocking"
    }
}

/// The communicator's stream, as NCCL's type.
fn on(comm: &Communicator) -> cudaStream_t {
    comm.gpu.stream().cu_stream() as cudaStream_t
}

/// NCCL's reduction for cudarc's [`ReduceOp`].
fn red_op(op: &ReduceOp) -> ncclRedOp_t {
    match op {
        ReduceOp::Sum => ncclRedOp_t::ncclSum,
        ReduceOp::Prod => ncclRedOp_t::ncclProd,
        ReduceOp::Max => ncclRedOp_t::ncclMax,
        ReduceOp::Min => ncclRedOp_t::ncclMin,
        ReduceOp::Avg => ncclRedOp_t::ncclAvg,
    }
}

fn same_len(what: &'static str, src: usize, dst: usize) -> Result<(), Error> {
    if src == dst {
        Ok(())
    } else {
        Err(Error::LengthMismatch { what, src, dst })
    }
}

/// `Ok` when `rank` (the `role`: root, peer) is a rank of `comm`.
fn rank_of(call: &'static str, role: &str, rank: usize, comm: &Communicator) -> Result<(), Error> {
    if rank < comm.ranks() {
        Ok(())
    } else {
        Err(Error::Collective {
            call,
            problem: format!(
                "{role} {rank} is not a rank of a communicator of {}",
                comm.ranks()
            ),
        })
    }
}

/// The root was given no buffer where it needs one.
fn needs(call: &'static str, what: &str, root: usize) -> Error {
    Error::Collective {
        call,
        problem: format!("rank {root} is the root and needs {what}"),
    }
}

/// `Ok` when the `whole` buffer holds `ranks()` times the `part` buffer's values.
fn per_rank(
    call: &'static str,
    whole: &str,
    whole_len: usize,
    part: &str,
    part_len: usize,
    comm: &Communicator,
) -> Result<(), Error> {
    if Some(whole_len) == part_len.checked_mul(comm.ranks()) {
        Ok(())
    } else {
        Err(Error::Collective {
            call,
            problem: format!(
                "the {whole} holds {whole_len} value(s), not {} ranks × {part_len} (the {part}'s)",
                comm.ranks()
            ),
        })
    }
}

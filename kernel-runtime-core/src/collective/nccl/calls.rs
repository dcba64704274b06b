//! NCCL's calls but the collectives, one checked method each: the version, the unique id,
//! making communicators (`ncclCommInitAll`, `ncclCommInitRank`, `ncclCommInitRankConfig`,
//! `ncclCommSplit`), asking them (`ncclCommUserRank`, `ncclCommCount`,
//! `ncclCommGetAsyncError`), ending them (`ncclCommDestroy`, `ncclCommAbort`) and groups
//! (`ncclGroupStart`, `ncclGroupEnd`). Each makes its raw call here and returns its result
//! checked (`results`): `Ok`, or an [`Error`] naming the call. The entry points absent from
//! older releases are an [`Error::Collective`] naming the release that brought them.

use std::ffi::c_int;

use cudarc::nccl::sys::{ncclComm_t, ncclDataType_t, ncclUniqueId};

use super::library::Nccl;
use super::progress::{Code, IN_PROGRESS, SUCCESS};
use crate::collective::config::Config;
use crate::error::Error;

/// What NCCL made, and whether it made it non-blocking (the call returned `ncclInProgress`,
/// as under `NCCL_COMM_BLOCKING=0`; the runtime finished it before returning).
#[derive(Debug)]
pub(crate) struct Made<T> {
    /// The communicator(s).
    pub(crate) comms: T,
    /// NCCL made them non-blocking: their later calls may be left in progress.
    pub(crate) non_blocking: bool,
}

/// An entry point that older NCCL releases lack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Optional {
    /// `ncclCommInitRankConfig`, from NCCL 2.14: a non-blocking initialisation.
    CommInitRankConfig,
    /// `ncclCommSplit`, from NCCL 2.18.
    CommSplit,
}

impl Optional {
    /// The call's name, the release that brought it and, where the runtime needs it for one
    /// thing, what for.
    fn describe(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Optional::CommInitRankConfig => (
                "ncclCommInitRankConfig",
                "2.14",
                ": a timeout needs its non-blocking initialisation",
            ),
            Optional::CommSplit => ("ncclCommSplit", "2.18", ""),
        }
    }
}

impl Nccl {
    /// `ncclGetVersion`: the library's version, `(major, minor, patch)`.
    pub(crate) fn version(&self) -> Result<(u32, u32, u32), Error> {
        let mut v: c_int = 0;
        // SAFETY: one out-pointer.
        let code = unsafe { (self.get_version)(&mut v) };
        // SAFETY: no communicator.
        unsafe { self.check("ncclGetVersion", code, std::ptr::null_mut()) }?;
        let v = v as u32;
        // 2.9 and later encode major*10000 + minor*100 + patch; older ones major*1000 + ...
        Ok(if v >= 20900 {
            (v / 10000, v / 100 % 100, v % 100)
        } else {
            (v / 1000, v / 100 % 10, v % 100)
        })
    }

    /// `Ok` when the library has the entry point `entry`; otherwise [`Error::Collective`]
    /// naming it, this library's version and the release that brought it.
    pub(crate) fn require(&self, entry: Optional) -> Result<(), Error> {
        let present = match entry {
            Optional::CommInitRankConfig => self.comm_init_rank_config.is_some(),
            Optional::CommSplit => self.comm_split.is_some(),
        };
        if present {
            Ok(())
        } else {
            Err(self.missing(entry))
        }
    }

    /// The error for a library without `entry`.
    fn missing(&self, entry: Optional) -> Error {
        let (call, since, why) = entry.describe();
        Error::Collective {
            call,
            problem: format!(
                "this NCCL ({}) has no {call}, which came with NCCL {since}{why}",
                self.version()
                    .map_or_else(|e| e.to_string(), |(a, b, c)| format!("{a}.{b}.{c}"))
            ),
        }
    }

    /// `ncclGetUniqueId`: a new id for the ranks of a communicator to share.
    pub(crate) fn unique_id(&self) -> Result<ncclUniqueId, Error> {
        let mut id = ncclUniqueId { internal: [0; 128] };
        // SAFETY: one out-pointer.
        let code = unsafe { (self.get_unique_id)(&mut id) };
        // SAFETY: no communicator.
        unsafe { self.check("ncclGetUniqueId", code, std::ptr::null_mut()) }?;
        Ok(id)
    }

    /// `ncclCommInitAll`: one communicator per device of `ordinals`, rank `i` on
    /// `ordinals[i]`, finished when NCCL made them non-blocking.
    pub(crate) fn comm_init_all(&self, ordinals: &[c_int]) -> Result<Made<Vec<ncclComm_t>>, Error> {
        let mut comms: Vec<ncclComm_t> = vec![std::ptr::null_mut(); ordinals.len()];
        let count = c_int::try_from(ordinals.len()).unwrap_or(c_int::MAX);
        // SAFETY: one out-slot and one ordinal per device.
        let code = unsafe { (self.comm_init_all)(comms.as_mut_ptr(), count, ordinals.as_ptr()) };
        let non_blocking = code == IN_PROGRESS;
        // SAFETY: what NCCL wrote: null or the communicators it is making.
        unsafe { self.complete("ncclCommInitAll", code, &comms) }?;
        Ok(Made {
            comms,
            non_blocking,
        })
    }

    /// `ncclCommInitRank`: rank `rank` of `ranks` ranks sharing `id`, on the device of the
    /// thread's current context; returns once every rank joined (and, when NCCL made it
    /// non-blocking, once it finished).
    pub(crate) fn comm_init_rank(
        &self,
        ranks: c_int,
        id: ncclUniqueId,
        rank: c_int,
    ) -> Result<Made<ncclComm_t>, Error> {
        let mut comm: ncclComm_t = std::ptr::null_mut();
        // SAFETY: one out-pointer; the id is passed by value.
        let code = unsafe { (self.comm_init_rank)(&mut comm, ranks, id, rank) };
        let non_blocking = code == IN_PROGRESS;
        // SAFETY: what NCCL wrote: null or the communicator it is making.
        unsafe { self.check("ncclCommInitRank", code, comm) }?;
        Ok(Made {
            comms: comm,
            non_blocking,
        })
    }

    /// `ncclCommInitRankConfig` with `config`: starts making rank `rank` of `ranks` ranks
    /// sharing `id`, and returns the communicator at once, possibly still in progress (a
    /// non-blocking `config`): [`settle`](Nccl::settle) it. When NCCL refuses the call, a
    /// communicator it returned all the same is aborted. An NCCL older than 2.14 is an
    /// [`Error::Collective`] ([`require`](Nccl::require)).
    pub(crate) fn comm_init_rank_config(
        &self,
        ranks: c_int,
        id: ncclUniqueId,
        rank: c_int,
        config: &mut Config,
    ) -> Result<ncclComm_t, Error> {
        const CALL: &str = "ncclCommInitRankConfig";
        let Some(init) = self.comm_init_rank_config else {
            return Err(self.missing(Optional::CommInitRankConfig));
        };
        let mut comm: ncclComm_t = std::ptr::null_mut();
        // SAFETY: one out-pointer; the id is passed by value; NCCL copies the configuration
        // during the call.
        let code = unsafe { init(&mut comm, ranks, id, rank, config.as_ptr()) };
        if code != SUCCESS && code != IN_PROGRESS {
            let e = self.error(CALL, code);
            if !comm.is_null() {
                // SAFETY: the communicator NCCL made here, which nothing else holds; aborting
                // stops its initialisation and frees it.
                let _ = unsafe { self.comm_abort(comm) };
            }
            return Err(e);
        }
        Ok(comm)
    }

    /// `ncclCommSplit` of `comm` with `color` (`NCCL_SPLIT_NOCOLOR` for none) and `key` (the
    /// rank order), the new communicator written to `out` (when NCCL finishes the group the
    /// call is in, for a non-blocking parent), its configuration the parent's. An NCCL older
    /// than 2.18 is an [`Error::Collective`] ([`require`](Nccl::require)).
    ///
    /// # Safety
    /// `comm` is a live communicator; `out` stays valid until the group the call is in ends.
    pub(crate) unsafe fn comm_split(
        &self,
        comm: ncclComm_t,
        color: c_int,
        key: c_int,
        out: *mut ncclComm_t,
    ) -> Result<(), Error> {
        let Some(split) = self.comm_split else {
            return Err(self.missing(Optional::CommSplit));
        };
        // SAFETY: by the caller's promise; a null configuration keeps the parent's.
        let code = unsafe { split(comm, color, key, out, std::ptr::null_mut()) };
        // SAFETY: as above.
        unsafe { self.check("ncclCommSplit", code, comm) }
    }

    /// `ncclCommUserRank`: the rank of `comm`.
    ///
    /// # Safety
    /// `comm` is a live communicator.
    pub(crate) unsafe fn comm_user_rank(&self, comm: ncclComm_t) -> Result<c_int, Error> {
        let mut rank: c_int = 0;
        // SAFETY: a live communicator and an out-value.
        let code = unsafe { (self.comm_user_rank)(comm, &mut rank) };
        // SAFETY: as above.
        unsafe { self.check("ncclCommUserRank", code, comm) }?;
        Ok(rank)
    }

    /// `ncclCommCount`: how many ranks `comm` has.
    ///
    /// # Safety
    /// `comm` is a live communicator.
    pub(crate) unsafe fn comm_count(&self, comm: ncclComm_t) -> Result<c_int, Error> {
        let mut ranks: c_int = 0;
        // SAFETY: a live communicator and an out-value.
        let code = unsafe { (self.comm_count)(comm, &mut ranks) };
        // SAFETY: as above.
        unsafe { self.check("ncclCommCount", code, comm) }?;
        Ok(ranks)
    }

    /// `ncclCommGetAsyncError`: `Ok` while `comm` has no asynchronous error; NCCL's code as
    /// an [`Error::Nccl`] when it has one (a state still in progress is waited for first).
    ///
    /// # Safety
    /// `comm` is a live communicator.
    pub(crate) unsafe fn comm_get_async_error(&self, comm: ncclComm_t) -> Result<(), Error> {
        const CALL: &str = "ncclCommGetAsyncError";
        // SAFETY: forwarded to the caller.
        let (code, state) = unsafe { self.get_async_error(comm) };
        // SAFETY: as above.
        unsafe { self.check(CALL, code, comm) }?;
        // SAFETY: as above.
        unsafe { self.check(CALL, state, comm) }
    }

    /// `comm`'s state (`ncclCommGetAsyncError`), which `results` polls while NCCL has a call
    /// of it in progress; an [`Error::Nccl`] when NCCL cannot tell it.
    ///
    /// # Safety
    /// `comm` is a live communicator.
    pub(super) unsafe fn async_state(&self, comm: ncclComm_t) -> Result<Code, Error> {
        // SAFETY: forwarded to the caller.
        let (code, state) = unsafe { self.get_async_error(comm) };
        if code == SUCCESS {
            Ok(state)
        } else {
            Err(self.error("ncclCommGetAsyncError", code))
        }
    }

    /// The raw `ncclCommGetAsyncError`: its result and the state it wrote.
    ///
    /// # Safety
    /// `comm` is a live communicator.
    unsafe fn get_async_error(&self, comm: ncclComm_t) -> (Code, Code) {
        let mut state = SUCCESS;
        // SAFETY: a live communicator and one out-value.
        let code = unsafe { (self.comm_get_async_error)(comm, &mut state) };
        (code, state)
    }

    /// `ncclCommDestroy`: frees `comm` once its work has finished.
    ///
    /// # Safety
    /// `comm` is a live communicator, not used again.
    pub(crate) unsafe fn comm_destroy(&self, comm: ncclComm_t) -> Result<(), Error> {
        // SAFETY: forwarded to the caller.
        let code = unsafe { (self.comm_destroy)(comm) };
        // SAFETY: the communicator is gone: nothing to poll.
        unsafe { self.check("ncclCommDestroy", code, std::ptr::null_mut()) }
    }

    /// `ncclCommAbort`: ends `comm` now, its unfinished work left undone.
    ///
    /// # Safety
    /// `comm` is a live communicator, not used again.
    pub(crate) unsafe fn comm_abort(&self, comm: ncclComm_t) -> Result<(), Error> {
        // SAFETY: forwarded to the caller.
        let code = unsafe { (self.comm_abort)(comm) };
        // SAFETY: the communicator is gone: nothing to poll.
        unsafe { self.check("ncclCommAbort", code, std::ptr::null_mut()) }
    }

    /// `ncclGroupStart`: the calls that follow on this thread wait for `ncclGroupEnd`.
    pub(crate) fn group_start(&self) -> Result<(), Error> {
        // SAFETY: no arguments.
        let code = unsafe { (self.group_start)() };
        // SAFETY: no communicator.
        unsafe { self.check("ncclGroupStart", code, std::ptr::null_mut()) }
    }

    /// `ncclGroupEnd`: NCCL queues the group's work; when it leaves that in progress (on
    /// non-blocking communicators), it is finished on `comms`, those of the group.
    ///
    /// # Safety
    /// Each of `comms` is null or a live communicator.
    pub(crate) unsafe fn group_end(&self, comms: &[ncclComm_t]) -> Result<(), Error> {
        // SAFETY: NCCL refuses an end without a start.
        let code = unsafe { (self.group_end)() };
        // SAFETY: forwarded to the caller.
        unsafe { self.complete("ncclGroupEnd", code, comms) }
    }

    /// Makes NCCL drop the group open on this thread whole at its end, rather than queue the
    /// work of some ranks only: a send NCCL refuses (to no rank) marks the group failed. It
    /// goes to `comm`, a communicator already in the group. A failed group leaves its
    /// non-blocking communicators in error: NCCL's rule.
    ///
    /// # Safety
    /// `comm` is a live communicator with a call in the group open on this thread.
    pub(crate) unsafe fn fail_group(&self, comm: ncclComm_t) {
        // SAFETY: by the caller's promise; NCCL checks the peer before it reads anything.
        let _ = unsafe {
            (self.send)(
                std::ptr::null(),
                1,
                ncclDataType_t::ncclFloat32,
                -1,
                comm,
                std::ptr::null_mut(),
            )
        };
    }
}

//! NCCL's collectives, one checked method each (`ncclAllReduce`, `ncclBroadcast`,
//! `ncclReduce`, `ncclAllGather`, `ncclReduceScatter`, `ncclSend`, `ncclRecv`): the raw call
//! here, its result checked (`results`) into `Ok` or an [`Error::Nccl`] naming the call.
//! What the buffers hold and how long they live is the caller's to vouch for: the methods are
//! `unsafe`, as the calls are.

use std::ffi::{c_int, c_void};

use cudarc::nccl::sys::{cudaStream_t, ncclComm_t, ncclDataType_t, ncclRedOp_t};

use super::library::Nccl;
use crate::error::Error;

impl Nccl {
    /// `ncclAllReduce`: `op` of `count` values of `send` over every rank into `recv` (the
    /// same buffer for in place).
    ///
    /// # Safety
    /// `comm` is a live communicator and `stream` a stream of its device; `send` and `recv`
    /// hold `count` values of `data_type` on that device and stay valid until the work is
    /// queued (the end of the group the call is in).
    #[allow(clippy::too_many_arguments)] // NCCL's arguments, in NCCL's order
    pub(crate) unsafe fn all_reduce(
        &self,
        send: *const c_void,
        recv: *mut c_void,
        count: usize,
        data_type: ncclDataType_t,
        op: ncclRedOp_t,
        comm: ncclComm_t,
        stream: cudaStream_t,
    ) -> Result<(), Error> {
        // SAFETY: by the caller's promise.
        let code = unsafe { (self.all_reduce)(send, recv, count, data_type, op, comm, stream) };
        // SAFETY: as above.
        unsafe { self.check("ncclAllReduce", code, comm) }
    }

    /// `ncclBroadcast`: `count` values of `send` on rank `root` into `recv` on every rank
    /// (`send` is read on the root only).
    ///
    /// # Safety
    /// As [`all_reduce`](Nccl::all_reduce), `send` on the root only.
    #[allow(clippy::too_many_arguments)] // NCCL's arguments, in NCCL's order
    pub(crate) unsafe fn broadcast(
        &self,
        send: *const c_void,
        recv: *mut c_void,
        count: usize,
        data_type: ncclDataType_t,
        root: c_int,
        comm: ncclComm_t,
        stream: cudaStream_t,
    ) -> Result<(), Error> {
        // SAFETY: by the caller's promise.
        let code = unsafe { (self.broadcast)(send, recv, count, data_type, root, comm, stream) };
        // SAFETY: as above.
        unsafe { self.check("ncclBroadcast", code, comm) }
    }

    /// `ncclReduce`: `op` of `count` values of `send` over every rank into `recv` on rank
    /// `root` (`recv` is written on the root only).
    ///
    /// # Safety
    /// As [`all_reduce`](Nccl::all_reduce), `recv` on the root only.
    #[allow(clippy::too_many_arguments)] // NCCL's arguments, in NCCL's order
    pub(crate) unsafe fn reduce(
        &self,
        send: *const c_void,
        recv: *mut c_void,
        count: usize,
        data_type: ncclDataType_t,
        op: ncclRedOp_t,
        root: c_int,
        comm: ncclComm_t,
        stream: cudaStream_t,
    ) -> Result<(), Error> {
        // SAFETY: by the caller's promise.
        let code = unsafe { (self.reduce)(send, recv, count, data_type, op, root, comm, stream) };
        // SAFETY: as above.
        unsafe { self.check("ncclReduce", code, comm) }
    }

    /// `ncclAllGather`: `count` values of `send` from every rank into `recv`, in rank order.
    ///
    /// # Safety
    /// As [`all_reduce`](Nccl::all_reduce), with `recv` holding `count` values per rank.
    pub(crate) unsafe fn all_gather(
        &self,
        send: *const c_void,
        recv: *mut c_void,
        count: usize,
        data_type: ncclDataType_t,
        comm: ncclComm_t,
        stream: cudaStream_t,
    ) -> Result<(), Error> {
        // SAFETY: by the caller's promise.
        let code = unsafe { (self.all_gather)(send, recv, count, data_type, comm, stream) };
        // SAFETY: as above.
        unsafe { self.check("ncclAllGather", code, comm) }
    }

    /// `ncclReduceScatter`: `op` of `send` over every rank, block `rank` of the result
    /// (`count` values) into `recv`.
    ///
    /// # Safety
    /// As [`all_reduce`](Nccl::all_reduce), with `send` holding `count` values per rank.
    #[allow(clippy::too_many_arguments)] // NCCL's arguments, in NCCL's order
    pub(crate) unsafe fn reduce_scatter(
        &self,
        send: *const c_void,
        recv: *mut c_void,
        count: usize,
        data_type: ncclDataType_t,
        op: ncclRedOp_t,
        comm: ncclComm_t,
        stream: cudaStream_t,
    ) -> Result<(), Error> {
        // SAFETY: by the caller's promise.
        let code = unsafe { (self.reduce_scatter)(send, recv, count, data_type, op, comm, stream) };
        // SAFETY: as above.
        unsafe { self.check("ncclReduceScatter", code, comm) }
    }

    /// `ncclSend`: `count` values of `send` to rank `peer`.
    ///
    /// # Safety
    /// As [`all_reduce`](Nccl::all_reduce), for `send`.
    pub(crate) unsafe fn send(
        &self,
        send: *const c_void,
        count: usize,
        data_type: ncclDataType_t,
        peer: c_int,
        comm: ncclComm_t,
        stream: cudaStream_t,
    ) -> Result<(), Error> {
        // SAFETY: by the caller's promise.
        let code = unsafe { (self.send)(send, count, data_type, peer, comm, stream) };
        // SAFETY: as above.
        unsafe { self.check("ncclSend", code, comm) }
    }

    /// `ncclRecv`: `count` values from rank `peer` into `recv`.
    ///
    /// # Safety
    /// As [`all_reduce`](Nccl::all_reduce), for `recv`.
    pub(crate) unsafe fn recv(
        &self,
        recv: *mut c_void,
        count: usize,
        data_type: ncclDataType_t,
        peer: c_int,
        comm: ncclComm_t,
        stream: cudaStream_t,
    ) -> Result<(), Error> {
        // SAFETY: by the caller's promise.
        let code = unsafe { (self.recv)(recv, count, data_type, peer, comm, stream) };
        // SAFETY: as above.
        unsafe { self.check("ncclRecv", code, comm) }
    }
}

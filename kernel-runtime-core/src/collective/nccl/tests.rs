//! The layer over a fake NCCL: entry points written here in Rust, which return what a test
//! sets and note how they were called, so that the checks (each call's error naming it, a
//! call left in progress polled to its end, the optional entry points, the abort of a
//! refused initialisation) are tested without NCCL or a GPU. The fakes keep their state per
//! thread: each test runs on its own.

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, c_void};
use std::time::{Duration, Instant};

use cuda_kernel_objects::native::Library;
use cudarc::nccl::sys::{
    cudaStream_t, ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclResult_t, ncclUniqueId,
};

use super::calls::Optional;
use super::library::Nccl;
use super::progress::{Code, IN_PROGRESS, SUCCESS};
use super::results::Settled;
use crate::collective::config::Config;
use crate::error::Error;

/// The communicator the fakes make and take; never dereferenced.
const COMM: ncclComm_t = 0x1000 as ncclComm_t;

thread_local! {
    /// What every call but `ncclCommGetAsyncError` returns.
    static RESULT: Cell<Code> = const { Cell::new(SUCCESS) };
    /// How many more times `ncclCommGetAsyncError` reports `ncclInProgress`.
    static BUSY: Cell<usize> = const { Cell::new(0) };
    /// The state it reports after that.
    static FINAL: Cell<Code> = const { Cell::new(SUCCESS) };
    /// How often it was asked.
    static ASKED: Cell<usize> = const { Cell::new(0) };
    /// What `ncclGetVersion` writes.
    static VERSION: Cell<c_int> = const { Cell::new(21903) };
    /// The communicators aborted.
    static ABORTED: RefCell<Vec<ncclComm_t>> = const { RefCell::new(Vec::new()) };
    /// The peers of the sends.
    static SENT_TO: RefCell<Vec<c_int>> = const { RefCell::new(Vec::new()) };
}

fn result() -> Code {
    RESULT.with(Cell::get)
}

unsafe extern "C" fn get_version(v: *mut c_int) -> Code {
    // SAFETY: the layer passes one out-value.
    unsafe { v.write(VERSION.with(Cell::get)) };
    SUCCESS
}

unsafe extern "C" fn get_error_string(code: Code) -> *const c_char {
    if code == ncclResult_t::ncclRemoteError as Code {
        c"remote process exited or there was a network error".as_ptr()
    } else {
        c"a fake NCCL's description".as_ptr()
    }
}

unsafe extern "C" fn get_last_error(_: ncclComm_t) -> *const c_char {
    c"peer 1 went away".as_ptr()
}

unsafe extern "C" fn get_unique_id(id: *mut ncclUniqueId) -> Code {
    // SAFETY: the layer passes one out-value.
    unsafe { id.write(ncclUniqueId { internal: [3; 128] }) };
    result()
}

unsafe extern "C" fn comm_init_rank(
    comm: *mut ncclComm_t,
    _: c_int,
    _: ncclUniqueId,
    _: c_int,
) -> Code {
    // SAFETY: the layer passes one out-value.
    unsafe { comm.write(COMM) };
    result()
}

unsafe extern "C" fn comm_init_rank_config(
    comm: *mut ncclComm_t,
    _: c_int,
    _: ncclUniqueId,
    _: c_int,
    config: *mut c_void,
) -> Code {
    assert!(!config.is_null());
    // SAFETY: the layer passes one out-value.
    unsafe { comm.write(COMM) };
    result()
}

unsafe extern "C" fn comm_init_all(comms: *mut ncclComm_t, n: c_int, _: *const c_int) -> Code {
    for i in 0..n as usize {
        // SAFETY: the layer passes `n` out-slots.
        unsafe { comms.add(i).write(COMM.wrapping_byte_add(i)) };
    }
    result()
}

unsafe extern "C" fn comm_destroy(_: ncclComm_t) -> Code {
    result()
}

unsafe extern "C" fn comm_abort(comm: ncclComm_t) -> Code {
    ABORTED.with(|a| a.borrow_mut().push(comm));
    SUCCESS
}

unsafe extern "C" fn comm_split(
    _: ncclComm_t,
    _: c_int,
    _: c_int,
    out: *mut ncclComm_t,
    _: *mut c_void,
) -> Code {
    // SAFETY: the layer passes one out-slot.
    unsafe { out.write(COMM) };
    result()
}

unsafe extern "C" fn comm_count(_: ncclComm_t, n: *mut c_int) -> Code {
    // SAFETY: the layer passes one out-value.
    unsafe { n.write(4) };
    result()
}

unsafe extern "C" fn comm_user_rank(_: ncclComm_t, rank: *mut c_int) -> Code {
    // SAFETY: the layer passes one out-value.
    unsafe { rank.write(2) };
    result()
}

unsafe extern "C" fn comm_get_async_error(_: ncclComm_t, state: *mut Code) -> Code {
    ASKED.with(|a| a.set(a.get() + 1));
    let busy = BUSY.with(Cell::get);
    let now = if busy > 0 {
        BUSY.with(|b| b.set(busy - 1));
        IN_PROGRESS
    } else {
        FINAL.with(Cell::get)
    };
    // SAFETY: the layer passes one out-value.
    unsafe { state.write(now) };
    SUCCESS
}

unsafe extern "C" fn group_call() -> Code {
    result()
}

unsafe extern "C" fn all_reduce(
    _: *const c_void,
    _: *mut c_void,
    _: usize,
    _: ncclDataType_t,
    _: ncclRedOp_t,
    _: ncclComm_t,
    _: cudaStream_t,
) -> Code {
    result()
}

unsafe extern "C" fn broadcast(
    _: *const c_void,
    _: *mut c_void,
    _: usize,
    _: ncclDataType_t,
    _: c_int,
    _: ncclComm_t,
    _: cudaStream_t,
) -> Code {
    result()
}

#[allow(clippy::too_many_arguments)] // NCCL's prototype
unsafe extern "C" fn reduce(
    _: *const c_void,
    _: *mut c_void,
    _: usize,
    _: ncclDataType_t,
    _: ncclRedOp_t,
    _: c_int,
    _: ncclComm_t,
    _: cudaStream_t,
) -> Code {
    result()
}

unsafe extern "C" fn all_gather(
    _: *const c_void,
    _: *mut c_void,
    _: usize,
    _: ncclDataType_t,
    _: ncclComm_t,
    _: cudaStream_t,
) -> Code {
    result()
}

unsafe extern "C" fn send(
    _: *const c_void,
    _: usize,
    _: ncclDataType_t,
    peer: c_int,
    _: ncclComm_t,
    _: cudaStream_t,
) -> Code {
    SENT_TO.with(|s| s.borrow_mut().push(peer));
    result()
}

unsafe extern "C" fn recv(
    _: *mut c_void,
    _: usize,
    _: ncclDataType_t,
    _: c_int,
    _: ncclComm_t,
    _: cudaStream_t,
) -> Code {
    result()
}

/// A table of the fakes; `optional`: with the entry points of NCCL 2.14 and 2.18. The C
/// library stands for the library the table keeps open.
fn fake(optional: bool) -> Nccl {
    let library = Library::open("the C library", &["libc.so.6"]).unwrap();
    Nccl {
        get_version,
        get_error_string,
        get_last_error: Some(get_last_error),
        get_unique_id,
        comm_init_rank,
        comm_init_rank_config: optional.then_some(comm_init_rank_config as _),
        comm_init_all,
        comm_destroy,
        comm_abort,
        comm_split: optional.then_some(comm_split as _),
        comm_count,
        comm_user_rank,
        comm_get_async_error,
        group_start: group_call,
        group_end: group_call,
        all_reduce,
        broadcast,
        reduce,
        all_gather,
        reduce_scatter: all_reduce,
        send,
        recv,
        _library: library,
    }
}

/// The call, code name and message of an [`Error::Nccl`].
fn nccl_error(e: Error) -> (&'static str, &'static str, String) {
    match e {
        Error::Nccl {
            call,
            name,
            message,
            ..
        } => (call, name, message),
        other => panic!("not an NCCL error: {other}"),
    }
}

#[test]
fn every_call_that_fails_is_an_error_naming_it() {
    let nccl = fake(true);
    RESULT.with(|r| r.set(ncclResult_t::ncclInvalidArgument as Code));
    let (s, d, float, sum) = (
        std::ptr::null(),
        std::ptr::null_mut(),
        ncclDataType_t::ncclFloat32,
        ncclRedOp_t::ncclSum,
    );
    let stream = std::ptr::null_mut();
    // SAFETY: the fakes read no buffer and no communicator.
    let results = unsafe {
        [
            (
                "ncclAllReduce",
                nccl.all_reduce(s, d, 1, float, sum, COMM, stream),
            ),
            (
                "ncclBroadcast",
                nccl.broadcast(s, d, 1, float, 0, COMM, stream),
            ),
            (
                "ncclReduce",
                nccl.reduce(s, d, 1, float, sum, 0, COMM, stream),
            ),
            (
                "ncclAllGather",
                nccl.all_gather(s, d, 1, float, COMM, stream),
            ),
            (
                "ncclReduceScatter",
                nccl.reduce_scatter(s, d, 1, float, sum, COMM, stream),
            ),
            ("ncclSend", nccl.send(s, 1, float, 1, COMM, stream)),
            ("ncclRecv", nccl.recv(d, 1, float, 1, COMM, stream)),
            ("ncclGroupStart", nccl.group_start()),
            ("ncclGroupEnd", nccl.group_end(&[COMM])),
            ("ncclGetUniqueId", nccl.unique_id().map(drop)),
            ("ncclCommInitAll", nccl.comm_init_all(&[0, 1]).map(drop)),
            (
                "ncclCommInitRank",
                nccl.comm_init_rank(2, ncclUniqueId { internal: [0; 128] }, 0)
                    .map(drop),
            ),
            (
                "ncclCommSplit",
                nccl.comm_split(COMM, 0, 0, &mut std::ptr::null_mut()),
            ),
            ("ncclCommUserRank", nccl.comm_user_rank(COMM).map(drop)),
            ("ncclCommCount", nccl.comm_count(COMM).map(drop)),
            ("ncclCommDestroy", nccl.comm_destroy(COMM)),
        ]
    };
    for (call, result) in results {
        let (named, name, message) = nccl_error(result.unwrap_err());
        assert_eq!(named, call);
        assert_eq!(name, "ncclInvalidArgument", "{call}");
        assert_eq!(
            message, "a fake NCCL's description (NCCL's last message: peer 1 went away)",
            "{call}"
        );
    }
    RESULT.with(|r| r.set(SUCCESS));
    // SAFETY: as above.
    unsafe {
        nccl.all_reduce(s, d, 1, float, sum, COMM, stream).unwrap();
        assert_eq!(nccl.comm_user_rank(COMM).unwrap(), 2);
        assert_eq!(nccl.comm_count(COMM).unwrap(), 4);
    }
    assert_eq!(nccl.unique_id().unwrap().internal, [3; 128]);
}

#[test]
fn a_call_left_in_progress_is_finished_before_it_returns() {
    let nccl = fake(true);
    RESULT.with(|r| r.set(IN_PROGRESS));
    BUSY.with(|b| b.set(3));
    // SAFETY: the fakes read no communicator.
    unsafe { nccl.group_end(&[COMM, std::ptr::null_mut()]) }.unwrap();
    assert_eq!(
        ASKED.with(Cell::get),
        4,
        "asked until it was not in progress"
    );

    // What the communicator ends in is the call's outcome, named for the call.
    BUSY.with(|b| b.set(2));
    FINAL.with(|f| f.set(ncclResult_t::ncclRemoteError as Code));
    // SAFETY: as above.
    let e = unsafe { nccl.group_end(&[COMM]) }.unwrap_err();
    let (call, name, message) = nccl_error(e);
    assert_eq!((call, name), ("ncclGroupEnd", "ncclRemoteError"));
    assert!(message.starts_with("remote process exited"), "{message}");

    // With no communicator to wait for, the call stays in progress: an error.
    // SAFETY: as above.
    let e = unsafe { nccl.group_end(&[]) }.unwrap_err();
    assert_eq!(nccl_error(e).1, "ncclInProgress");

    // Communicators made non-blocking are finished and said to be.
    FINAL.with(|f| f.set(SUCCESS));
    BUSY.with(|b| b.set(1));
    let made = nccl.comm_init_all(&[0, 1, 2]).unwrap();
    assert!(made.non_blocking);
    assert_eq!(made.comms.len(), 3);
    assert_eq!(made.comms[2], COMM.wrapping_byte_add(2));
    RESULT.with(|r| r.set(SUCCESS));
    assert!(!nccl.comm_init_all(&[0]).unwrap().non_blocking);
}

#[test]
fn an_asynchronous_error_is_the_state_once_it_has_settled() {
    let nccl = fake(true);
    BUSY.with(|b| b.set(2));
    FINAL.with(|f| f.set(ncclResult_t::ncclRemoteError as Code));
    // SAFETY: the fakes read no communicator.
    let e = unsafe { nccl.comm_get_async_error(COMM) }.unwrap_err();
    let (call, name, _) = nccl_error(e);
    assert_eq!((call, name), ("ncclCommGetAsyncError", "ncclRemoteError"));
    FINAL.with(|f| f.set(SUCCESS));
    // SAFETY: as above.
    unsafe { nccl.comm_get_async_error(COMM) }.unwrap();
}

#[test]
fn settling_with_a_deadline_times_out_or_names_the_call() {
    let nccl = fake(true);
    BUSY.with(|b| b.set(usize::MAX));
    let started = Instant::now();
    let deadline = started + Duration::from_millis(20);
    // SAFETY: the fakes read no communicator.
    let settled = unsafe { nccl.settle("ncclCommInitRankConfig", &[COMM], Some(deadline)) };
    assert_eq!(settled.unwrap(), Settled::TimedOut);
    assert!(started.elapsed() >= Duration::from_millis(20));

    BUSY.with(|b| b.set(1));
    FINAL.with(|f| f.set(ncclResult_t::ncclSystemError as Code));
    // SAFETY: as above.
    let e = unsafe { nccl.settle("ncclCommInitRankConfig", &[COMM], None) }.unwrap_err();
    assert_eq!(nccl_error(e).0, "ncclCommInitRankConfig");
    FINAL.with(|f| f.set(SUCCESS));
    // SAFETY: as above.
    let settled = unsafe { nccl.settle("ncclCommInitRankConfig", &[COMM], None) };
    assert_eq!(settled.unwrap(), Settled::Finished);
}

#[test]
fn a_missing_optional_entry_point_is_an_error_naming_the_release_that_brought_it() {
    let nccl = fake(false);
    VERSION.with(|v| v.set(21212));
    let problem = |e: Error| match e {
        Error::Collective { call, problem } => format!("{call}: {problem}"),
        other => panic!("{other}"),
    };
    assert_eq!(
        problem(nccl.require(Optional::CommSplit).unwrap_err()),
        "ncclCommSplit: this NCCL (2.12.12) has no ncclCommSplit, which came with NCCL 2.18"
    );
    // SAFETY: the fakes read no communicator.
    let e = unsafe { nccl.comm_split(COMM, 0, 0, &mut std::ptr::null_mut()) }.unwrap_err();
    assert!(problem(e).contains("NCCL 2.18"));
    let e = nccl
        .comm_init_rank_config(
            2,
            ncclUniqueId { internal: [0; 128] },
            0,
            &mut Config::non_blocking(),
        )
        .unwrap_err();
    assert_eq!(
        problem(e),
        "ncclCommInitRankConfig: this NCCL (2.12.12) has no ncclCommInitRankConfig, which came \
         with NCCL 2.14: a timeout needs its non-blocking initialisation"
    );
    assert!(fake(true).require(Optional::CommSplit).is_ok());
}

#[test]
fn a_refused_initialisation_is_aborted_and_one_in_progress_is_returned() {
    let nccl = fake(true);
    let id = ncclUniqueId { internal: [0; 128] };
    RESULT.with(|r| r.set(ncclResult_t::ncclInvalidUsage as Code));
    let e = nccl
        .comm_init_rank_config(2, id, 0, &mut Config::non_blocking())
        .unwrap_err();
    let (call, name, _) = nccl_error(e);
    assert_eq!((call, name), ("ncclCommInitRankConfig", "ncclInvalidUsage"));
    assert_eq!(ABORTED.with(|a| a.borrow().clone()), [COMM]);

    RESULT.with(|r| r.set(IN_PROGRESS));
    let comm = nccl
        .comm_init_rank_config(2, id, 0, &mut Config::non_blocking())
        .unwrap();
    assert_eq!(comm, COMM);
    assert_eq!(
        ABORTED.with(|a| a.borrow().len()),
        1,
        "nothing more aborted"
    );
}

#[test]
fn versions_are_read_in_both_encodings() {
    let nccl = fake(true);
    VERSION.with(|v| v.set(21903));
    assert_eq!(nccl.version().unwrap(), (2, 19, 3));
    // Before 2.9: major * 1000 + minor * 100 + patch.
    VERSION.with(|v| v.set(2406));
    assert_eq!(nccl.version().unwrap(), (2, 4, 6));
}

#[test]
fn failing_a_group_sends_to_no_rank_and_ignores_the_refusal() {
    let nccl = fake(true);
    RESULT.with(|r| r.set(ncclResult_t::ncclInvalidArgument as Code));
    // SAFETY: the fakes read no communicator.
    unsafe { nccl.fail_group(COMM) };
    assert_eq!(SENT_TO.with(|s| s.borrow().clone()), [-1]);
}

//! Opening NCCL at run time: `libnccl.so.2` (or the file `KERNEL_NCCL_LIBRARY` names) is
//! opened on first use, and every entry point the runtime calls is resolved then, so that a
//! missing library or a missing symbol is an [`Error`], never a panic.
//!
//! The library is opened through the workspace's one loader (`cuda_kernel_objects::native`),
//! and the entry points are declared with cudarc's NCCL types (`cudarc::nccl::sys`). cudarc's own
//! loader is not used: it looks for `libnccl.so` and `libnccl.so.<CUDA major>` but not
//! `libnccl.so.2`, the name NCCL's runtime packages (the `libnccl2` package, the
//! `nvidia-nccl-cu13` wheel) install, and it panics on a missing symbol. Results are read as
//! plain integers, so that a code newer than cudarc's enum is reported, not undefined.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::OnceLock;
use std::time::Instant;

use cuda_kernel_objects::native::Library;
use cudarc::nccl::sys::{cudaStream_t, ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclUniqueId};

use crate::collective::progress::{Code, IN_PROGRESS, Polled, SUCCESS, settle_all};
use crate::env;
use crate::error::Error;

/// The names tried when `KERNEL_NCCL_LIBRARY` is not set, in order.
const NAMES: [&str; 2] = ["libnccl.so.2", "libnccl.so"];

/// The NCCL entry points the runtime calls, resolved when the library was opened.
pub(crate) struct Nccl {
    pub(crate) get_version: unsafe extern "C" fn(*mut c_int) -> Code,
    pub(crate) get_error_string: unsafe extern "C" fn(Code) -> *const c_char,
    /// Absent before NCCL 2.13.
    pub(crate) get_last_error: Option<unsafe extern "C" fn(ncclComm_t) -> *const c_char>,
    pub(crate) get_unique_id: unsafe extern "C" fn(*mut ncclUniqueId) -> Code,
    pub(crate) comm_init_rank:
        unsafe extern "C" fn(*mut ncclComm_t, c_int, ncclUniqueId, c_int) -> Code,
    /// `ncclCommInitRankConfig`, absent before NCCL 2.14; the configuration is a
    /// [`Config`](crate::collective::config::Config).
    pub(crate) comm_init_rank_config: Option<
        unsafe extern "C" fn(*mut ncclComm_t, c_int, ncclUniqueId, c_int, *mut c_void) -> Code,
    >,
    pub(crate) comm_init_all: unsafe extern "C" fn(*mut ncclComm_t, c_int, *const c_int) -> Code,
    pub(crate) comm_destroy: unsafe extern "C" fn(ncclComm_t) -> Code,
    pub(crate) comm_abort: unsafe extern "C" fn(ncclComm_t) -> Code,
    /// `ncclCommSplit`, absent before NCCL 2.18; the configuration is passed as null (the
    /// parent's is kept).
    pub(crate) comm_split: Option<
        unsafe extern "C" fn(ncclComm_t, c_int, c_int, *mut ncclComm_t, *mut c_void) -> Code,
    >,
    pub(crate) comm_count: unsafe extern "C" fn(ncclComm_t, *mut c_int) -> Code,
    pub(crate) comm_user_rank: unsafe extern "C" fn(ncclComm_t, *mut c_int) -> Code,
    pub(crate) comm_get_async_error: unsafe extern "C" fn(ncclComm_t, *mut Code) -> Code,
    pub(crate) group_start: unsafe extern "C" fn() -> Code,
    pub(crate) group_end: unsafe extern "C" fn() -> Code,
    pub(crate) all_reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        ncclRedOp_t,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    pub(crate) broadcast: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        c_int,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    pub(crate) reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        ncclRedOp_t,
        c_int,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    pub(crate) all_gather: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    pub(crate) reduce_scatter: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        ncclRedOp_t,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    pub(crate) send: unsafe extern "C" fn(
        *const c_void,
        usize,
        ncclDataType_t,
        c_int,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    pub(crate) recv: unsafe extern "C" fn(
        *mut c_void,
        usize,
        ncclDataType_t,
        c_int,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    /// Kept open for the life of the process (the pointers above point into it).
    _library: Library,
}

/// The library, opened on first use; every later call gets the same answer.
pub(crate) fn nccl() -> Result<&'static Nccl, Error> {
    static NCCL: OnceLock<Result<Nccl, Vec<String>>> = OnceLock::new();
    NCCL.get_or_init(open)
        .as_ref()
        .map_err(|tried| Error::NoNccl {
            tried: tried.clone(),
        })
}

/// Opens the first library that loads and holds every entry point; each failure is noted.
fn open() -> Result<Nccl, Vec<String>> {
    let names: Vec<std::ffi::OsString> = match env::var_os("KERNEL_NCCL_LIBRARY") {
        Some(file) => vec![file],
        None => NAMES.iter().map(Into::into).collect(),
    };
    let mut tried = Vec::new();
    for name in names {
        // NCCL's initialisers have no preconditions.
        let opened = Library::open("NCCL", &[&name])
            .map_err(|e| e.detail().to_owned())
            .and_then(resolve);
        match opened {
            Ok(nccl) => return Ok(nccl),
            Err(e) => tried.push(format!("{}: {e}", name.to_string_lossy())),
        }
    }
    Err(tried)
}

/// The entry points of an opened library, or the first one it lacks.
fn resolve(library: Library) -> Result<Nccl, String> {
    /// The symbol `name`, typed as the field it fills.
    fn get<F: Copy>(library: &Library, name: &str) -> Result<F, String> {
        // SAFETY: each field's type is the entry point's C prototype (NCCL's nccl.h), with
        // cudarc's types for NCCL's and the result read as its integer value; the library is
        // kept beside the pointers.
        unsafe { library.function::<F>(name) }.map_err(|e| format!("no `{name}` ({})", e.detail()))
    }
    let l = &library;
    Ok(Nccl {
        get_version: get(l, "ncclGetVersion")?,
        get_error_string: get(l, "ncclGetErrorString")?,
        get_last_error: get(l, "ncclGetLastError").ok(),
        get_unique_id: get(l, "ncclGetUniqueId")?,
        comm_init_rank: get(l, "ncclCommInitRank")?,
        comm_init_rank_config: get(l, "ncclCommInitRankConfig").ok(),
        comm_init_all: get(l, "ncclCommInitAll")?,
        comm_destroy: get(l, "ncclCommDestroy")?,
        comm_abort: get(l, "ncclCommAbort")?,
        comm_split: get(l, "ncclCommSplit").ok(),
        comm_count: get(l, "ncclCommCount")?,
        comm_user_rank: get(l, "ncclCommUserRank")?,
        comm_get_async_error: get(l, "ncclCommGetAsyncError")?,
        group_start: get(l, "ncclGroupStart")?,
        group_end: get(l, "ncclGroupEnd")?,
        all_reduce: get(l, "ncclAllReduce")?,
        broadcast: get(l, "ncclBroadcast")?,
        reduce: get(l, "ncclReduce")?,
        all_gather: get(l, "ncclAllGather")?,
        reduce_scatter: get(l, "ncclReduceScatter")?,
        send: get(l, "ncclSend")?,
        recv: get(l, "ncclRecv")?,
        _library: library,
    })
}

impl Nccl {
    /// `Ok` for `ncclSuccess`, otherwise [`Error::Nccl`] naming `call`, the code, NCCL's
    /// description of it and, where the library keeps one, its last message. A call NCCL left
    /// in progress (`ncclInProgress`, from a non-blocking communicator) is finished first, by
    /// [`settle`](Nccl::settle)ing `comm`; its outcome is then the call's.
    pub(crate) fn check(
        &self,
        call: &'static str,
        code: Code,
        comm: ncclComm_t,
    ) -> Result<(), Error> {
        self.complete(call, code, &[comm])
    }

    /// [`check`](Nccl::check) for a call that concerns several communicators (the end of a
    /// group, whose work NCCL's thread queues on each): every call the runtime makes is checked
    /// here, so that a non-blocking communicator's calls look like a blocking one's.
    pub(crate) fn complete(
        &self,
        call: &'static str,
        code: Code,
        comms: &[ncclComm_t],
    ) -> Result<(), Error> {
        // Inside a group nothing is left pending until its end: the communicators' state is
        // then what it was before the group, and the polling returns at once.
        let code = if code == IN_PROGRESS {
            match self.settle(comms, None)? {
                Polled::Done(code) => code,
                Polled::TimedOut => IN_PROGRESS,
            }
        } else {
            code
        };
        if code == SUCCESS {
            Ok(())
        } else {
            Err(self.error(call, code))
        }
    }

    /// Waits until none of `comms` (null ones skipped) is in progress, or until `deadline`:
    /// the first state other than `ncclSuccess` among them, or success; `TimedOut` when the
    /// deadline passed first. With no communicator to wait for, `ncclInProgress` stays.
    pub(crate) fn settle(
        &self,
        comms: &[ncclComm_t],
        deadline: Option<Instant>,
    ) -> Result<Polled, Error> {
        let live: Vec<ncclComm_t> = comms.iter().copied().filter(|c| !c.is_null()).collect();
        settle_all(&live, deadline, |&comm| {
            let mut state = SUCCESS;
            // SAFETY: a live communicator and one out-value.
            let code = unsafe { (self.comm_get_async_error)(comm, &mut state) };
            if code == SUCCESS {
                Ok(state)
            } else {
                Err(self.error("ncclCommGetAsyncError", code))
            }
        })
    }

    /// [`Error::Nccl`] for `call`, which returned `code` (not `ncclSuccess`): the code, NCCL's
    /// description of it and, where the library keeps one, its last message.
    pub(crate) fn error(&self, call: &'static str, code: Code) -> Error {
        // SAFETY: NCCL returns a static string for any code.
        let mut message = unsafe { text((self.get_error_string)(code)) };
        if let Some(last) = self.get_last_error {
            // SAFETY: NCCL ignores the communicator (null is allowed) and returns a string
            // it owns.
            let detail = unsafe { text(last(std::ptr::null_mut())) };
            if !detail.is_empty() {
                // NCCL keeps one last message per process: it may be an earlier call's.
                message = format!("{message} (NCCL's last message: {detail})");
            }
        }
        Error::Nccl {
            call,
            code,
            name: code_name(code),
            message,
        }
    }

    /// The library's version, `(major, minor, patch)`.
    pub(crate) fn version(&self) -> Result<(u32, u32, u32), Error> {
        let mut v: c_int = 0;
        // SAFETY: one out-pointer.
        let code = unsafe { (self.get_version)(&mut v) };
        self.check("ncclGetVersion", code, std::ptr::null_mut())?;
        let v = v as u32;
        // 2.9 and later encode major*10000 + minor*100 + patch; older ones major*1000 + ...
        Ok(if v >= 20900 {
            (v / 10000, v / 100 % 100, v % 100)
        } else {
            (v / 1000, v / 100 % 10, v % 100)
        })
    }
}

/// A string NCCL returned (empty for null).
///
/// # Safety
/// `s` is null or a NUL-terminated string that stays valid during the call.
unsafe fn text(s: *const c_char) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: forwarded to the caller.
    unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
}

/// The name of an `ncclResult_t` code, as nccl.h spells it.
fn code_name(code: Code) -> &'static str {
    match code {
        0 => "ncclSuccess",
        1 => "ncclUnhandledCudaError",
        2 => "ncclSystemError",
        3 => "ncclInternalError",
        4 => "ncclInvalidArgument",
        5 => "ncclInvalidUsage",
        6 => "ncclRemoteError",
        7 => "ncclInProgress",
        8 => "ncclTimeout",
        _ => "an ncclResult_t unknown to this runtime",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudarc::nccl::sys::ncclResult_t;

    #[test]
    fn codes_are_named_as_nccl_h_names_them() {
        assert_eq!(
            code_name(ncclResult_t::ncclInvalidUsage as Code),
            "ncclInvalidUsage"
        );
        assert_eq!(
            code_name(ncclResult_t::ncclRemoteError as Code),
            "ncclRemoteError"
        );
        assert!(code_name(99).contains("unknown"));
    }

    #[test]
    fn opening_nccl_is_a_version_or_an_error_naming_the_library() {
        match nccl().and_then(Nccl::version) {
            Ok((major, _, _)) => assert!(major >= 2),
            Err(e @ Error::NoNccl { .. }) => {
                let text = e.to_string();
                assert!(text.contains("libnccl.so.2"), "{text}");
                assert!(text.contains("KERNEL_NCCL_LIBRARY"), "{text}");
            }
            Err(other) => panic!("{other}"),
        }
    }

    #[test]
    fn a_missing_library_is_an_error_naming_it() {
        let opened = Library::open("NCCL", &["/nonexistent/libnccl.so.2"]);
        assert!(opened.is_err());
        let e = Error::NoNccl {
            tried: vec!["libnccl.so.2: not found".to_owned()],
        };
        assert!(e.to_string().contains("libnccl.so.2"), "{e}");
    }
}

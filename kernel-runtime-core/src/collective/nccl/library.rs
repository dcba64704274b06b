//! Opening NCCL at run time: `libnccl.so.2` (or the file `KERNEL_NCCL_LIBRARY` names) is
//! opened on first use, and every entry point the runtime calls is resolved then, so that a
//! missing library or a missing symbol is an [`Error`], never a panic. The entry points are
//! kept in [`Nccl`], whose fields only this folder sees: the rest of the crate calls NCCL
//! through the checked methods of `calls` and `collectives`.
//!
//! The library is opened through the workspace's one loader (`cuda_kernel_objects::native`),
//! and the entry points are declared with cudarc's NCCL types (`cudarc::nccl::sys`). cudarc's own
//! loader is not used: it looks for `libnccl.so` and `libnccl.so.<CUDA major>` but not
//! `libnccl.so.2`, the name NCCL's runtime packages (the `libnccl2` package, the
//! `nvidia-nccl-cu13` wheel) install, and it panics on a missing symbol. Results are read as
//! plain integers, so that a code newer than cudarc's enum is reported, not undefined.

use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

use cuda_kernel_objects::native::Library;
use cudarc::nccl::sys::{cudaStream_t, ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclUniqueId};

use super::progress::Code;
use crate::env;
use crate::error::Error;

/// The names tried when `KERNEL_NCCL_LIBRARY` is not set, in order.
const NAMES: [&str; 2] = ["libnccl.so.2", "libnccl.so"];

/// The NCCL entry points the runtime calls, resolved when the library was opened; each is
/// called by one checked method of this folder (`Nccl::all_reduce` for `all_reduce`, ...).
pub(crate) struct Nccl {
    pub(super) get_version: unsafe extern "C" fn(*mut c_int) -> Code,
    pub(super) get_error_string: unsafe extern "C" fn(Code) -> *const c_char,
    /// Absent before NCCL 2.13.
    pub(super) get_last_error: Option<unsafe extern "C" fn(ncclComm_t) -> *const c_char>,
    pub(super) get_unique_id: unsafe extern "C" fn(*mut ncclUniqueId) -> Code,
    pub(super) comm_init_rank:
        unsafe extern "C" fn(*mut ncclComm_t, c_int, ncclUniqueId, c_int) -> Code,
    /// `ncclCommInitRankConfig`, absent before NCCL 2.14; the configuration is a
    /// [`Config`](crate::collective::config::Config).
    pub(super) comm_init_rank_config: Option<
        unsafe extern "C" fn(*mut ncclComm_t, c_int, ncclUniqueId, c_int, *mut c_void) -> Code,
    >,
    pub(super) comm_init_all: unsafe extern "C" fn(*mut ncclComm_t, c_int, *const c_int) -> Code,
    pub(super) comm_destroy: unsafe extern "C" fn(ncclComm_t) -> Code,
    pub(super) comm_abort: unsafe extern "C" fn(ncclComm_t) -> Code,
    /// `ncclCommSplit`, absent before NCCL 2.18; the configuration is passed as null (the
    /// parent's is kept).
    pub(super) comm_split: Option<
        unsafe extern "C" fn(ncclComm_t, c_int, c_int, *mut ncclComm_t, *mut c_void) -> Code,
    >,
    pub(super) comm_count: unsafe extern "C" fn(ncclComm_t, *mut c_int) -> Code,
    pub(super) comm_user_rank: unsafe extern "C" fn(ncclComm_t, *mut c_int) -> Code,
    pub(super) comm_get_async_error: unsafe extern "C" fn(ncclComm_t, *mut Code) -> Code,
    pub(super) group_start: unsafe extern "C" fn() -> Code,
    pub(super) group_end: unsafe extern "C" fn() -> Code,
    pub(super) all_reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        ncclRedOp_t,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    pub(super) broadcast: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        c_int,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    pub(super) reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        ncclRedOp_t,
        c_int,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    pub(super) all_gather: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    pub(super) reduce_scatter: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        ncclDataType_t,
        ncclRedOp_t,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    pub(super) send: unsafe extern "C" fn(
        *const c_void,
        usize,
        ncclDataType_t,
        c_int,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    pub(super) recv: unsafe extern "C" fn(
        *mut c_void,
        usize,
        ncclDataType_t,
        c_int,
        ncclComm_t,
        cudaStream_t,
    ) -> Code,
    /// Kept open for the life of the process (the pointers above point into it).
    pub(super) _library: Library,
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A library that loads but is not NCCL (the C library) is refused, naming the first
    /// entry point it lacks.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_library_without_an_entry_point_is_refused_naming_it() {
        let libc = Library::open("the C library", &["libc.so.6"]).unwrap();
        let Err(missing) = resolve(libc) else {
            panic!("the C library passed for NCCL");
        };
        assert!(missing.starts_with("no `ncclGetVersion`"), "{missing}");
    }
}

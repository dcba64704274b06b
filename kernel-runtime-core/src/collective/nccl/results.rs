//! NCCL's results turned into the runtime's: `ncclSuccess` is `Ok`, any other code an
//! [`Error::Nccl`] naming the call, the code, NCCL's description and its last message; a call
//! NCCL left in progress (`ncclInProgress`, a non-blocking communicator's) is finished first,
//! by polling the communicators it concerns (`progress`). Every call of `calls` and
//! `collectives` is checked here, so that a non-blocking communicator's calls look like a
//! blocking one's.

use std::ffi::{CStr, c_char};
use std::time::Instant;

use cudarc::nccl::sys::ncclComm_t;

use super::library::Nccl;
use super::progress::{Code, IN_PROGRESS, Polled, SUCCESS, settle_all};
use crate::error::Error;

/// How waiting for calls NCCL left in progress ended, when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Settled {
    /// Every communicator finished, successfully.
    Finished,
    /// The deadline passed while one was still in progress.
    TimedOut,
}

impl Nccl {
    /// `Ok` for `ncclSuccess`, otherwise [`Error::Nccl`] naming `call`, the code, NCCL's
    /// description of it and, where the library keeps one, its last message. A call NCCL left
    /// in progress is finished first by polling `comm` (none when null); its outcome is then
    /// the call's.
    ///
    /// # Safety
    /// `comm` is null or a live communicator.
    pub(super) unsafe fn check(
        &self,
        call: &'static str,
        code: Code,
        comm: ncclComm_t,
    ) -> Result<(), Error> {
        // SAFETY: forwarded to the caller.
        unsafe { self.complete(call, code, &[comm]) }
    }

    /// [`check`](Nccl::check) for a call that concerns several communicators (the end of a
    /// group, whose work NCCL's thread queues on each).
    ///
    /// # Safety
    /// Each of `comms` is null or a live communicator.
    pub(super) unsafe fn complete(
        &self,
        call: &'static str,
        code: Code,
        comms: &[ncclComm_t],
    ) -> Result<(), Error> {
        // Inside a group nothing is left pending until its end: the communicators' state is
        // then what it was before the group, and the polling returns at once.
        let code = if code == IN_PROGRESS {
            // SAFETY: forwarded to the caller.
            match unsafe { self.poll(comms, None) }? {
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

    /// Waits until none of `comms` is in progress with `call` (a non-blocking initialisation,
    /// say), or until `deadline`: `Finished` when all finished successfully, `TimedOut` when
    /// the deadline passed first, and [`Error::Nccl`] for `call` with the first state other
    /// than `ncclSuccess` among them.
    ///
    /// # Safety
    /// Each of `comms` is null (skipped) or a live communicator.
    pub(crate) unsafe fn settle(
        &self,
        call: &'static str,
        comms: &[ncclComm_t],
        deadline: Option<Instant>,
    ) -> Result<Settled, Error> {
        // SAFETY: forwarded to the caller.
        match unsafe { self.poll(comms, deadline) }? {
            Polled::Done(SUCCESS) => Ok(Settled::Finished),
            Polled::Done(code) => Err(self.error(call, code)),
            Polled::TimedOut => Ok(Settled::TimedOut),
        }
    }

    /// Polls the states of `comms` (null ones skipped) until none is in progress, or until
    /// `deadline`: the first state other than `ncclSuccess` among them, or success; with no
    /// communicator to wait for, `ncclInProgress` stays.
    ///
    /// # Safety
    /// Each of `comms` is null or a live communicator.
    unsafe fn poll(
        &self,
        comms: &[ncclComm_t],
        deadline: Option<Instant>,
    ) -> Result<Polled, Error> {
        let live: Vec<ncclComm_t> = comms.iter().copied().filter(|c| !c.is_null()).collect();
        // SAFETY: live communicators, by the caller's promise.
        settle_all(&live, deadline, |&comm| unsafe { self.async_state(comm) })
    }

    /// [`Error::Nccl`] for `call`, which returned `code` (not `ncclSuccess`): the code, NCCL's
    /// description of it (`ncclGetErrorString`) and, where the library keeps one, its last
    /// message (`ncclGetLastError`).
    pub(super) fn error(&self, call: &'static str, code: Code) -> Error {
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
        assert_eq!(code_name(IN_PROGRESS), "ncclInProgress");
        assert!(code_name(99).contains("unknown"));
    }
}

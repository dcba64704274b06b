//! The data-safety choice a generated tuned entry point takes: time on the call's own buffers
//! ([`Idempotent`]), or save what the kernel may write and put it back ([`RestoreWritten`]).

use super::outputs::Idempotent;

/// What a generated `<kernel>_tuned` method does with the call's buffers while it times the
/// variants on them, the first time a key is seen: one of
///
/// - [`Idempotent`]: nothing. The kernel writes its outputs from its inputs alone, so any
///   number of runs leaves the same data;
/// - [`RestoreWritten`]: every buffer passed for a `T*` parameter is copied to scratch device
///   memory before the timing runs and copied back after, so that the chosen variant then
///   runs once on the data the caller passed (a kernel that adds into its output, or updates
///   in place).
///
/// The choice is an argument of every call, so that the call says which holds; it costs
/// nothing on a call whose key is settled. Sealed: these two are the choices.
///
/// ```
/// use cuda_kernel_runtime::tune::{Idempotent, Protection, RestoreWritten};
/// fn takes(_: impl Protection) {}
/// takes(Idempotent);
/// takes(RestoreWritten);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not say how a tuned call's data survives the timing runs",
    label = "expected `Idempotent` or `RestoreWritten`",
    note = "`Idempotent`: the kernel's outputs depend on its inputs alone; `RestoreWritten`: what it may write is saved before timing and put back after"
)]
pub trait Protection: sealed::Sealed {
    /// Whether the buffers the kernel may write are saved before timing and put back after.
    ///
    /// ```
    /// use cuda_kernel_runtime::tune::{Idempotent, Protection, RestoreWritten};
    /// assert!(RestoreWritten.restores_written() && !Idempotent.restores_written());
    /// ```
    fn restores_written(&self) -> bool;
}

/// Every buffer the kernel may write (each argument of a `T*` parameter, an input it updates
/// in place included) is copied before a generated tuned entry point times the variants on
/// it, and copied back after: the timing runs leave no trace in the call's data.
///
/// The copies are device memory the size of those buffers, alive only while the call times.
/// A written argument that is not a device buffer or view (`Out`/`InOut` host slices) cannot
/// be saved: the call that would time fails, naming the parameter.
///
/// ```
/// let _choice = cuda_kernel_runtime::tune::RestoreWritten;
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct RestoreWritten;

impl Protection for Idempotent {
    fn restores_written(&self) -> bool {
        false
    }
}

impl Protection for RestoreWritten {
    fn restores_written(&self) -> bool {
        true
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Idempotent {}
    impl Sealed for super::RestoreWritten {}
}

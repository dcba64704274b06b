//! What keeps a call's data intact while the variants are timed on it: nothing, for a kernel
//! declared idempotent, or a snapshot taken before timing and put back after.

use crate::device::gpu::Gpu;
use crate::error::Error;

/// How the call's buffers are protected while the tuner times every variant on them.
///
/// Timing runs each variant many times on the call's own arguments. A kernel that only
/// writes its outputs from its inputs (`y[i] = f(x[i])`) leaves the same data after one run
/// or a hundred: declare it [`Idempotent`]. A kernel that reads what it writes (`y += x`,
/// an `atomicAdd` into a total) would return a wrong result after the timing runs: give a
/// [`Restore`], which copies what the kernel writes before timing and puts it back after, so
/// the chosen variant then runs once on the data the caller passed. The tuner calls
/// [`save`](Outputs::save) and [`restore`](Outputs::restore) only on a call that times; a call
/// whose choice is known touches neither.
///
/// ```
/// use cuda_kernel_runtime::tune::{Idempotent, Outputs};
/// fn protected<A>(_: impl Outputs<A>) {}
/// protected::<()>(Idempotent);
/// ```
pub trait Outputs<A: ?Sized> {
    /// Called once before the variants are timed on `args`.
    fn save(&mut self, gpu: &Gpu, args: &A) -> Result<(), Error>;

    /// Called once after the variants were timed, before the chosen one runs on `args`.
    fn restore(&mut self, gpu: &Gpu, args: &mut A) -> Result<(), Error>;
}

/// The kernel's result does not depend on how many times it ran: the variants are timed on
/// the call's real buffers, and nothing is copied.
///
/// Declare it only for kernels that write their outputs without reading them and whose
/// inputs are not among their outputs; otherwise use [`Restore`].
///
/// ```
/// use cuda_kernel_runtime::tune::Idempotent;
/// let _declared = Idempotent;
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Idempotent;

impl<A: ?Sized> Outputs<A> for Idempotent {
    fn save(&mut self, _: &Gpu, _: &A) -> Result<(), Error> {
        Ok(())
    }

    fn restore(&mut self, _: &Gpu, _: &mut A) -> Result<(), Error> {
        Ok(())
    }
}

/// A snapshot of what the kernel writes, taken before timing (`save`, which returns the copy)
/// and put back after it (`put`), so that timing leaves no trace in the call's data.
///
/// The copy is device memory of the caller's choosing (`gpu.duplicate(..)` of each buffer the
/// kernel writes, inputs it updates in place included); it lives only while the call times.
///
/// ```no_run
/// use cuda_kernel_runtime::{Gpu, TrackedBuffer};
/// use cuda_kernel_runtime::tune::Restore;
/// struct Args<'a> { x: &'a TrackedBuffer<f32>, y: &'a mut TrackedBuffer<f32> } // y += x
/// let restore = Restore::new(
///     |gpu: &Gpu, a: &Args<'_>| gpu.duplicate(&*a.y),
///     |gpu: &Gpu, saved: TrackedBuffer<f32>, a: &mut Args<'_>| gpu.copy(&saved, &mut *a.y),
/// );
/// # let _ = restore;
/// ```
pub struct Restore<S, Save, Put> {
    save: Save,
    put: Put,
    saved: Option<S>,
}

impl<S, Save, Put> Restore<S, Save, Put> {
    /// A snapshot made by `save` and put back by `put`.
    ///
    /// ```
    /// use cuda_kernel_runtime::{Error, Gpu};
    /// use cuda_kernel_runtime::tune::Restore;
    /// let _r = Restore::new(|_: &Gpu, a: &Vec<u8>| Ok::<_, Error>(a.clone()),
    ///                       |_: &Gpu, s: Vec<u8>, a: &mut Vec<u8>| { *a = s; Ok(()) });
    /// ```
    pub fn new<A: ?Sized>(save: Save, put: Put) -> Self
    where
        Save: FnMut(&Gpu, &A) -> Result<S, Error>,
        Put: FnMut(&Gpu, S, &mut A) -> Result<(), Error>,
    {
        Restore {
            save,
            put,
            saved: None,
        }
    }
}

impl<A, S, Save, Put> Outputs<A> for Restore<S, Save, Put>
where
    A: ?Sized,
    Save: FnMut(&Gpu, &A) -> Result<S, Error>,
    Put: FnMut(&Gpu, S, &mut A) -> Result<(), Error>,
{
    fn save(&mut self, gpu: &Gpu, args: &A) -> Result<(), Error> {
        self.saved = Some((self.save)(gpu, args)?);
        Ok(())
    }

    fn restore(&mut self, gpu: &Gpu, args: &mut A) -> Result<(), Error> {
        match self.saved.take() {
            Some(s) => (self.put)(gpu, s, args),
            None => Ok(()),
        }
    }
}

impl<S, Save, Put> std::fmt::Debug for Restore<S, Save, Put> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Restore")
            .field("saved", &self.saved.is_some())
            .finish()
    }
}

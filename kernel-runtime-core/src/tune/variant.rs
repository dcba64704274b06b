//! One way of running a tuned kernel: a name and a launch on the call's arguments.

use crate::device::gpu::Gpu;
use crate::error::Error;

/// One variant of a tuned kernel: a template instantiation, a launch shape, or both, that
/// takes the call's arguments `A` and queues its work on `gpu`'s stream (the tuner times that
/// stream: a stub of a module loaded with that `gpu` launches there).
///
/// The tuner times variants through this trait and launches the chosen one through it; its
/// names are what the cache, the embedded table and `KERNEL_TUNE_PIN` record, so keep them
/// stable (`block256_items4`, not an index). Every variant of a set must compute the same
/// result from the same arguments. Implement it for a type of your own, or make one from a
/// closure with [`variant`]; the variants a module declares (`tune` in `cuda_module!`) need
/// neither: their generated `<kernel>_tuned` method times and launches them.
///
/// ```no_run
/// use cuda_kernel_runtime::{Error, Gpu, Launch, Kernel, TrackedBuffer};
/// use cuda_kernel_runtime::tune::Variant;
///
/// struct Args<'a> { x: &'a TrackedBuffer<f32>, y: &'a mut TrackedBuffer<f32>, n: i32 }
///
/// /// `scale` launched with `block` threads per block.
/// struct Block { name: &'static str, kernel: Kernel, block: u32 }
///
/// impl Variant<Args<'_>> for Block {
///     fn name(&self) -> &str { self.name }
///     fn launch(&self, _gpu: &Gpu, a: &mut Args<'_>) -> Result<(), Error> {
///         let cfg = Launch::new((a.n as u32).div_ceil(self.block), self.block);
///         // SAFETY: scale(const float* x, float* y, int n) stays within n. The kernel's
///         // module was loaded with the tuner's `gpu`, so it launches on that stream.
///         unsafe { self.kernel.launch(&cfg, (&*a.x, &mut *a.y, a.n)) }
///     }
/// }
/// ```
pub trait Variant<A: ?Sized> {
    /// The variant's name, unique within its set.
    fn name(&self) -> &str;

    /// Queues the variant on `gpu`'s stream with `args`.
    ///
    /// An error while the tuner times the set (too much shared memory for this GPU, no
    /// image of the kernel for it) leaves this variant out with a note; an error when the
    /// chosen variant is launched is the call's error.
    ///
    /// # Safety of the launch
    ///
    /// The trait's method is safe: an implementation that launches an `unsafe` stub vouches
    /// for the kernel's use of its arguments, as any safe wrapper does.
    fn launch(&self, gpu: &Gpu, args: &mut A) -> Result<(), Error>;
}

impl<A: ?Sized, V: Variant<A> + ?Sized> Variant<A> for &V {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn launch(&self, gpu: &Gpu, args: &mut A) -> Result<(), Error> {
        (**self).launch(gpu, args)
    }
}

impl<A: ?Sized, V: Variant<A> + ?Sized> Variant<A> for Box<V> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn launch(&self, gpu: &Gpu, args: &mut A) -> Result<(), Error> {
        (**self).launch(gpu, args)
    }
}

/// A variant made of a name and a closure ([`variant`]).
///
/// ```
/// use cuda_kernel_runtime::tune::{FnVariant, Variant, variant};
/// let v: FnVariant<_> = variant("noop", |_gpu, _args: &mut ()| Ok(()));
/// assert_eq!(Variant::<()>::name(&v), "noop");
/// ```
#[derive(Clone, Debug)]
pub struct FnVariant<F> {
    name: String,
    launch: F,
}

/// A variant named `name` that runs `launch`.
///
/// ```no_run
/// use cuda_kernel_runtime::{Gpu, TrackedBuffer};
/// use cuda_kernel_runtime::tune::variant;
/// let quarter = variant("quarter", |gpu: &Gpu, y: &mut TrackedBuffer<f32>| {
///     let n = y.len();
///     gpu.memset_zeros(&mut y.slice_mut(..n / 4))
/// });
/// ```
pub fn variant<A, F>(name: impl Into<String>, launch: F) -> FnVariant<F>
where
    A: ?Sized,
    F: Fn(&Gpu, &mut A) -> Result<(), Error>,
{
    FnVariant {
        name: name.into(),
        launch,
    }
}

impl<A: ?Sized, F: Fn(&Gpu, &mut A) -> Result<(), Error>> Variant<A> for FnVariant<F> {
    fn name(&self) -> &str {
        &self.name
    }

    fn launch(&self, gpu: &Gpu, args: &mut A) -> Result<(), Error> {
        (self.launch)(gpu, args)
    }
}

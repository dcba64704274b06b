//! NVTX ranges for Nsight Systems and Nsight Compute: the runtime's around every launch, and
//! [`range`] for the program's own phases.
//!
//! With the crate's `nvtx` feature, every kernel launch (typed stubs, launches by name, raw
//! launches, cooperative and cluster launches, generated kernels, launches made while a graph
//! is captured) is wrapped in a push/pop range of the NVTX domain [`DOMAIN`] named
//! `module::kernel`, e.g. `m::poke` for kernel `poke` of `cuda_module! { mod m { .. } }`.
//! Each kernel's name is registered with NVTX once, when its module loads; a launch adds two
//! NVTX calls, which are empty functions when no tool is attached. (A graph's replay, one
//! driver call for all its kernels, is not wrapped: its launches' ranges were pushed when it
//! was captured.) Without the feature there is no NVTX code on the launch path at all, and
//! [`Range`] is an empty guard, so code that marks its phases compiles either way.
//!
//! Turn the feature on in the application (it needs libclang to build: the `nvtx-sys` crate
//! runs bindgen), then:
//!
//! - Nsight Systems: `nsys profile -t cuda,nvtx ./app` shows the ranges on each thread's
//!   timeline, under the domain `cuda-kernel`, with the phases of [`range`] around the
//!   launches they contain.
//! - Nsight Compute: `ncu --nvtx --nvtx-include "cuda-kernel@m::poke/" ./app` profiles only
//!   the launches of `poke` of module `m` (the form is `domain@range/`, the trailing `/`
//!   selecting push/pop ranges); `--nvtx-include "cuda-kernel@forward/"` profiles every launch
//!   made while `range("forward")` was alive on the launching thread.
//!
//! ```no_run
//! use cuda_kernel_runtime::profile;
//! # fn forward() {}
//! # fn backward() {}
//! {
//!     let _phase = profile::range("forward"); // popped at the end of the block
//!     forward();
//! }
//! let _phase = profile::range("backward");
//! backward();
//! ```

#[cfg(feature = "nvtx")]
pub(crate) mod nvtx;

use std::marker::PhantomData;

/// The NVTX domain of the runtime's ranges and of [`range`]'s: the `domain@` part of an
/// Nsight Compute filter.
///
/// ```
/// let filter = format!("{}@m::poke/", cuda_kernel_runtime::profile::DOMAIN);
/// assert_eq!(filter, "cuda-kernel@m::poke/");
/// ```
pub const DOMAIN: &str = "cuda-kernel";

/// Whether this build has the `nvtx` feature: launches and [`range`]s reach NVTX.
///
/// ```
/// if !cuda_kernel_runtime::profile::ENABLED {
///     println!("built without the `nvtx` feature: no ranges for the profilers");
/// }
/// ```
pub const ENABLED: bool = cfg!(feature = "nvtx");

/// A push/pop NVTX range of the calling thread, in the domain [`DOMAIN`], ended when the
/// guard is dropped. Not `Send`: a push/pop range begins and ends on one thread. Ranges nest:
/// the runtime's launch ranges sit inside the ones alive on the launching thread.
///
/// Ranges end in the reverse order of their start (NVTX pops the thread's innermost range):
/// drop the guards so, as scopes do.
///
/// Without the `nvtx` feature it is an empty value and costs nothing.
///
/// ```
/// use cuda_kernel_runtime::profile::Range;
/// let outer = Range::new("epoch");
/// {
///     let _inner = Range::new("batch 0");
/// }
/// drop(outer);
/// ```
#[must_use = "the range ends when this guard is dropped"]
pub struct Range {
    /// Keeps the guard on the thread that pushed the range.
    _thread: PhantomData<*const ()>,
}

impl Range {
    /// Begins a range named `name` on this thread (an interior NUL ends the name early). The
    /// name is copied for the call: a short-lived `String` may be passed.
    ///
    /// ```
    /// let step = 3;
    /// let _range = cuda_kernel_runtime::profile::Range::new(&format!("step {step}"));
    /// ```
    #[inline]
    pub fn new(name: &str) -> Range {
        #[cfg(feature = "nvtx")]
        nvtx::push(name);
        #[cfg(not(feature = "nvtx"))]
        let _ = name;
        Range {
            _thread: PhantomData,
        }
    }
}

#[cfg(feature = "nvtx")]
impl Drop for Range {
    fn drop(&mut self) {
        nvtx::pop();
    }
}

impl std::fmt::Debug for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Range")
            .field("domain", &DOMAIN)
            .field("enabled", &ENABLED)
            .finish()
    }
}

/// Begins a range named `name` on this thread, ended when the returned guard is dropped:
/// [`Range::new`].
///
/// ```
/// use cuda_kernel_runtime::profile;
/// let _load = profile::range("load weights");
/// ```
#[inline]
pub fn range(name: &str) -> Range {
    Range::new(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_nest_and_end_without_a_tool() {
        // No profiler is attached: the NVTX calls (with the feature) are no-ops, and the
        // guards must neither panic nor leak a range.
        for i in 0..1000 {
            let _outer = range("outer");
            let _inner = Range::new(&format!("inner {i}"));
        }
        let _odd = range("a\0b");
        assert_eq!(std::mem::size_of::<Range>(), 0);
        assert_eq!(ENABLED, cfg!(feature = "nvtx"));
    }
}

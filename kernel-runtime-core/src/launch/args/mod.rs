//! Kernel arguments for pointer parameters: cudarc buffers and views, with cudarc's cross-stream
//! events honoured (the runtime's own memory kinds in `tracked`, `pitched`, `ipc` and
//! `managed`, one file each), and the markers that say which of them fit a `const T*` or a
//! `T*`.
//!
//! A launch prepares every argument ([`DeviceArg::prepare`]: the stream waits on the buffer's
//! pending work), takes each prepared value's parameter pointer into a stack array, launches, and
//! finishes every argument ([`PreparedArg::finish`]: the buffer records the launch, so later work
//! on other streams waits for it). In single-stream mode cudarc keeps no events and all of this
//! is a few branches.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{
    CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceSlice,
};

use crate::error::Error;
use crate::memory::prepared::{PreparedBuffer, split};

/// A value that can be passed to a kernel parameter.
///
/// ```
/// use cuda_kernel_runtime::__private::{DeviceArg, PreparedArg};
/// fn takes_any_arg(_: impl DeviceArg) {}
/// takes_any_arg(3.0f32);
/// ```
pub trait DeviceArg {
    /// The argument, ready for the launch.
    type Prepared<'a>: PreparedArg
    where
        Self: 'a;

    /// Runs before the launch: uploads host data, makes `stream` wait on pending work.
    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<Self::Prepared<'a>, Error>;

    /// The bytes of device memory the argument addresses, where it is a device buffer or
    /// view a kernel may write (what a tuned entry point saves before it times the
    /// variants, `tune::RestoreWritten`); `Some(0)` for a null pointer; `None` otherwise.
    #[inline]
    fn byte_len(&self) -> Option<usize> {
        None
    }
}

/// An argument ready for the launch.
///
/// ```
/// use cuda_kernel_runtime::__private::{DeviceArg, PreparedArg};
/// # fn f(stream: &std::sync::Arc<cuda_kernel_runtime::CudaStream>) -> Result<(), cuda_kernel_runtime::Error> {
/// let mut n = 7i32;
/// let prepared = n.prepare(stream)?;
/// assert!(!prepared.param_ptr().is_null());
/// # Ok(()) }
/// ```
pub trait PreparedArg {
    /// Pointer to the parameter value (what `cuLaunchKernel` reads); valid while `self` is
    /// neither moved nor dropped.
    fn param_ptr(&self) -> *mut c_void;

    /// Runs after the launch: downloads results, records the buffer's use on `stream`.
    fn finish(self, stream: &Arc<CudaStream>) -> Result<(), Error>;
}

/// May be passed for a `const T*` parameter.
///
/// ```
/// use cuda_kernel_runtime::__private::ConstPtr;
/// use cuda_kernel_runtime::{CudaSlice, In};
/// fn wants_const_f32<'a>(_: impl ConstPtr<f32> + 'a) {}
/// fn call(x: &CudaSlice<f32>, host: &[f32]) {
///     wants_const_f32(x);
///     wants_const_f32(In(host));
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a `const {T}*` kernel parameter",
    label = "expected device memory holding `{T}`",
    note = "pass `&TrackedBuffer<{T}>`, `&TrackedView<{T}>`, `&CudaSlice<{T}>`, `&CudaView<{T}>`, `&UnifiedSlice<{T}>`, a mutable form of any, `In(&[{T}])`, `InOut(&mut [{T}])` or `Null`"
)]
pub trait ConstPtr<T>: DeviceArg {}

/// May be passed for a `T*` parameter (the kernel may write through it).
///
/// ```
/// use cuda_kernel_runtime::__private::MutPtr;
/// use cuda_kernel_runtime::{CudaSlice, Out};
/// fn wants_mut_f32<'a>(_: impl MutPtr<f32> + 'a) {}
/// fn call(y: &mut CudaSlice<f32>, host: &mut [f32]) {
///     wants_mut_f32(&mut *y);
///     wants_mut_f32(Out(host));
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a `{T}*` kernel parameter",
    label = "expected mutable device memory holding `{T}`",
    note = "pass `&mut TrackedBuffer<{T}>`, `&mut TrackedViewMut<{T}>`, `&mut CudaSlice<{T}>`, `&mut CudaViewMut<{T}>`, `&mut UnifiedSlice<{T}>`, `Out(&mut [{T}])`, `InOut(&mut [{T}])` or `Null`"
)]
pub trait MutPtr<T>: DeviceArg {}

/// Is exactly `T`: what a stub's value parameter takes, so that a wrong or missing value is
/// reported through the parameter's own trait (which names the CUDA parameter) rather than
/// as a plain type mismatch.
///
/// ```
/// use cuda_kernel_runtime::__private::Exactly;
/// fn wants_i32(n: impl Exactly<i32>) -> i32 {
///     Exactly::<i32>::into_exact(n)
/// }
/// assert_eq!(wants_i32(7), 7);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a kernel parameter of type `{T}`",
    label = "expected `{T}`"
)]
pub trait Exactly<T> {
    /// The value itself.
    fn into_exact(self) -> T;
}

impl<T> Exactly<T> for T {
    #[inline(always)]
    fn into_exact(self) -> T {
        self
    }
}

impl PreparedArg for PreparedBuffer<'_> {
    #[inline]
    fn param_ptr(&self) -> *mut c_void {
        self.addr_ptr()
    }

    #[inline]
    fn finish(self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        PreparedBuffer::finish(self, stream)
    }
}

/// Read access: waits on the last write, records a read.
macro_rules! read_arg {
    ($ty:ty, [$($lt:lifetime),*]) => {
        impl<$($lt,)* T> DeviceArg for $ty {
            type Prepared<'a> = PreparedBuffer<'a> where Self: 'a;

            #[inline]
            fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'a>, Error> {
                let buf = &*self;
                let (ptr, guard) = DevicePtr::device_ptr(&**buf, stream);
                // SAFETY: the event lives in the buffer (or its parent), borrowed for `'a`.
                Ok(unsafe { split(ptr, guard) })
            }
        }
        impl<$($lt,)* T> ConstPtr<T> for $ty {}
    };
}

/// Write access: waits on the last read and write, records a write.
macro_rules! write_arg {
    ($ty:ty, [$($lt:lifetime),*]) => {
        impl<$($lt,)* T> DeviceArg for $ty {
            type Prepared<'a> = PreparedBuffer<'a> where Self: 'a;

            #[inline]
            fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'a>, Error> {
                let (ptr, guard) = DevicePtrMut::device_ptr_mut(&mut **self, stream);
                // SAFETY: the event lives in the buffer (or its parent), mutably borrowed for `'a`.
                Ok(unsafe { split(ptr, guard) })
            }

            #[inline]
            fn byte_len(&self) -> Option<usize> {
                Some(DeviceSlice::num_bytes(&**self))
            }
        }
        impl<$($lt,)* T> ConstPtr<T> for $ty {}
        impl<$($lt,)* T> MutPtr<T> for $ty {}
    };
}

read_arg!(&'s CudaSlice<T>, ['s]);
read_arg!(&'s CudaView<'v, T>, ['s, 'v]);
read_arg!(&'s CudaViewMut<'v, T>, ['s, 'v]);
write_arg!(&'s mut CudaSlice<T>, ['s]);
write_arg!(&'s mut CudaViewMut<'v, T>, ['s, 'v]);

impl<'v, T> DeviceArg for CudaView<'v, T> {
    type Prepared<'a>
        = PreparedBuffer<'a>
    where
        Self: 'a;

    #[inline]
    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'a>, Error> {
        let (ptr, guard) = DevicePtr::device_ptr(&*self, stream);
        // SAFETY: the event lives in the parent buffer, borrowed for `'v: 'a`.
        Ok(unsafe { split(ptr, guard) })
    }
}
impl<T> ConstPtr<T> for CudaView<'_, T> {}

impl<'v, T> DeviceArg for CudaViewMut<'v, T> {
    type Prepared<'a>
        = PreparedBuffer<'a>
    where
        Self: 'a;

    #[inline]
    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'a>, Error> {
        let (ptr, guard) = DevicePtrMut::device_ptr_mut(self, stream);
        // SAFETY: the event lives in the parent buffer, mutably borrowed for `'v: 'a`.
        Ok(unsafe { split(ptr, guard) })
    }

    #[inline]
    fn byte_len(&self) -> Option<usize> {
        Some(DeviceSlice::num_bytes(self))
    }
}
impl<T> ConstPtr<T> for CudaViewMut<'_, T> {}
impl<T> MutPtr<T> for CudaViewMut<'_, T> {}

mod evented;
pub(crate) mod host;
mod managed;
pub(crate) mod null;
mod tracked;
pub(crate) mod tuple;
pub(crate) mod values;

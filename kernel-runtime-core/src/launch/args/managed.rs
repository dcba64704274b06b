//! cudarc's managed (unified) memory as kernel arguments: managed buffers and views, like
//! device buffers, with the buffer's event recorded after every launch (its host accessors
//! wait on it; see `memory::managed`).

use std::sync::Arc;

use cudarc::driver::{
    CudaStream, DevicePtr, DevicePtrMut, UnifiedSlice, UnifiedView, UnifiedViewMut,
};

use super::{ConstPtr, DeviceArg, MutPtr};
use crate::error::{DriverResultExt, Error};
use crate::memory::prepared::{PreparedBuffer, split_with};

/// One impl: `$self` bound to `&mut Self`, `$get` the `(ptr, guard)` from it, `$check` run
/// first (cudarc would only record its failure in the context).
macro_rules! managed_arg {
    ($ty:ty, [$($lt:lifetime),*], |$s:ident, $stream:ident| $check:expr, $get:expr) => {
        impl<$($lt,)* T> DeviceArg for $ty {
            type Prepared<'a> = PreparedBuffer<'a> where Self: 'a;

            #[inline]
            fn prepare<'a>(
                &'a mut self,
                $stream: &Arc<CudaStream>,
            ) -> Result<PreparedBuffer<'a>, Error> {
                let $s = self;
                $check.call("managed memory access")?;
                let (ptr, guard) = $get;
                // SAFETY: the event lives in the managed buffer, borrowed for `'a`.
                Ok(unsafe { split_with(ptr, guard, true) })
            }
        }
        impl<$($lt,)* T> ConstPtr<T> for $ty {}
    };
}

managed_arg!(&'s UnifiedSlice<T>, ['s], |s, stream| s.check_device_access(stream),
    DevicePtr::device_ptr(*s, stream));
managed_arg!(&'s mut UnifiedSlice<T>, ['s], |s, stream| s.check_device_access(stream),
    DevicePtrMut::device_ptr_mut(&mut **s, stream));
// A view's checks run inside cudarc's `device_ptr` (its buffer's attach mode).
managed_arg!(UnifiedView<'v, T>, ['v], |s, stream| Ok::<(), cudarc::driver::DriverError>(()),
    DevicePtr::device_ptr(&*s, stream));
managed_arg!(UnifiedViewMut<'v, T>, ['v], |s, stream| Ok::<(), cudarc::driver::DriverError>(()),
    DevicePtrMut::device_ptr_mut(s, stream));

impl<T> MutPtr<T> for &mut UnifiedSlice<T> {}
impl<T> MutPtr<T> for UnifiedViewMut<'_, T> {}

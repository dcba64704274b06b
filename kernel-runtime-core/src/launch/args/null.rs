//! Null for a pointer parameter: [`Null`], and `Option` of any pointer argument.
//!
//! Kernels of real libraries take null for optional inputs (a stride table meaning
//! "contiguous", an in-place input, an optional scale); a typed stub accepts [`Null`] for any
//! `const T*` or `T*` parameter, and `Some(buffer)` / `None` where the argument is optional
//! at run time.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::CudaStream;

use crate::error::Error;
use crate::launch::args::{ConstPtr, DeviceArg, MutPtr, PreparedArg};

/// The null device address a null pointer parameter is given (the driver only reads it).
static NULL_ADDRESS: u64 = 0;

fn null_param() -> *mut c_void {
    std::ptr::from_ref(&NULL_ADDRESS).cast_mut().cast()
}

/// A null pointer, for any `const T*` or `T*` kernel parameter.
///
/// ```
/// use cuda_kernel_runtime::__private::{ConstPtr, MutPtr};
/// use cuda_kernel_runtime::Null;
/// fn optional_strides(_: impl ConstPtr<usize>) {}
/// fn optional_output(_: impl MutPtr<f32>) {}
/// optional_strides(Null);
/// optional_output(Null);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Null;

/// [`Null`], ready for the launch.
#[derive(Debug)]
pub struct PreparedNull;

impl PreparedArg for PreparedNull {
    #[inline]
    fn param_ptr(&self) -> *mut c_void {
        null_param()
    }

    #[inline]
    fn finish(self, _: &Arc<CudaStream>) -> Result<(), Error> {
        Ok(())
    }
}

impl DeviceArg for Null {
    type Prepared<'a> = PreparedNull;

    #[inline]
    fn prepare(&mut self, _: &Arc<CudaStream>) -> Result<PreparedNull, Error> {
        Ok(PreparedNull)
    }

    #[inline]
    fn byte_len(&self) -> Option<usize> {
        Some(0)
    }
}

impl<T> ConstPtr<T> for Null {}
impl<T> MutPtr<T> for Null {}

/// An optional pointer argument, ready for the launch: the argument's own, or null.
#[derive(Debug)]
pub enum PreparedOption<P> {
    /// The argument was given.
    Some(P),
    /// `None`: the kernel gets a null pointer.
    None,
}

impl<P: PreparedArg> PreparedArg for PreparedOption<P> {
    #[inline]
    fn param_ptr(&self) -> *mut c_void {
        match self {
            PreparedOption::Some(p) => p.param_ptr(),
            PreparedOption::None => null_param(),
        }
    }

    #[inline]
    fn finish(self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        match self {
            PreparedOption::Some(p) => p.finish(stream),
            PreparedOption::None => Ok(()),
        }
    }
}

/// `Some(buffer)` passes the buffer, `None` a null pointer.
///
/// ```
/// use cuda_kernel_runtime::__private::ConstPtr;
/// use cuda_kernel_runtime::CudaSlice;
/// fn optional_strides(_: impl ConstPtr<usize>) {}
/// fn call(strides: Option<&CudaSlice<usize>>) {
///     optional_strides(strides);
/// }
/// ```
impl<A: DeviceArg> DeviceArg for Option<A> {
    type Prepared<'a>
        = PreparedOption<A::Prepared<'a>>
    where
        Self: 'a;

    #[inline]
    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<Self::Prepared<'a>, Error> {
        Ok(match self {
            Some(a) => PreparedOption::Some(a.prepare(stream)?),
            None => PreparedOption::None,
        })
    }

    #[inline]
    fn byte_len(&self) -> Option<usize> {
        match self {
            Some(a) => a.byte_len(),
            None => Some(0),
        }
    }
}

impl<T, A: ConstPtr<T>> ConstPtr<T> for Option<A> {}
impl<T, A: MutPtr<T>> MutPtr<T> for Option<A> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_passes_a_zero_address() {
        let p = PreparedNull;
        // SAFETY: `param_ptr` points at a `u64`.
        assert_eq!(unsafe { *p.param_ptr().cast::<u64>() }, 0);
        let none: PreparedOption<PreparedNull> = PreparedOption::None;
        // SAFETY: as above.
        assert_eq!(unsafe { *none.param_ptr().cast::<u64>() }, 0);
    }
}

//! Arguments passed by value: scalars, vector types, raw device pointers and `#[repr(C)]`
//! structs (through [`ByValue`]). Generated stubs pass these as plain references; the
//! [`DeviceArg`] impls here serve by-name launches ([`Kernel::launch`](crate::Kernel::launch)).

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{CudaStream, DeviceRepr};

use crate::error::Error;
use crate::launch::args::{DeviceArg, PreparedArg};
use crate::memory::device_memory::DeviceMemory;

/// A value passed by reference to its bytes.
pub struct PreparedValue<'a, T>(pub(crate) &'a T);

impl<T> PreparedArg for PreparedValue<'_, T> {
    #[inline]
    fn param_ptr(&self) -> *mut c_void {
        std::ptr::from_ref(self.0).cast_mut().cast()
    }

    #[inline]
    fn finish(self, _: &Arc<CudaStream>) -> Result<(), Error> {
        Ok(())
    }
}

/// Implements [`DeviceArg`] for types passed by value.
macro_rules! value_arg {
    ($($ty:ty),* $(,)?) => {$(
        impl $crate::launch::args::DeviceArg for $ty {
            type Prepared<'a> = $crate::launch::args::values::PreparedValue<'a, $ty>;

            #[inline]
            fn prepare<'a>(
                &'a mut self,
                _: &::std::sync::Arc<::cudarc::driver::CudaStream>,
            ) -> ::core::result::Result<Self::Prepared<'a>, $crate::Error> {
                ::core::result::Result::Ok($crate::launch::args::values::PreparedValue(self))
            }
        }
    )*};
}
pub(crate) use value_arg;

value_arg!(
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    isize,
    usize,
    f32,
    f64,
    half::f16,
    half::bf16,
    RawDevicePtr
);

/// A `#[repr(C)]` value passed by value to a by-name launch (`struct` parameters).
///
/// ```
/// use cuda_kernel_runtime::ByValue;
/// use cuda_kernel_runtime::cudarc::driver::DeviceRepr;
/// #[repr(C)]
/// #[derive(Clone, Copy)]
/// struct Params { scale: f32, n: i32 }
/// // SAFETY: plain `#[repr(C)]` data matching the CUDA struct.
/// unsafe impl DeviceRepr for Params {}
/// let arg = ByValue(Params { scale: 2.0, n: 10 });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ByValue<T>(pub T);

impl<T: DeviceRepr> DeviceArg for ByValue<T> {
    type Prepared<'a>
        = PreparedValue<'a, T>
    where
        Self: 'a;

    #[inline]
    fn prepare<'a>(&'a mut self, _: &Arc<CudaStream>) -> Result<PreparedValue<'a, T>, Error> {
        Ok(PreparedValue(&self.0))
    }
}

/// A raw device address, for `void*` and `T**` parameters where no element type can be checked.
///
/// It is passed by value and takes no part in cudarc's stream ordering: the caller orders the
/// work that uses it.
///
/// ```
/// use cuda_kernel_runtime::RawDevicePtr;
/// assert_eq!(RawDevicePtr::NULL.addr(), 0);
/// assert_eq!(RawDevicePtr::from_addr(0x1000).addr(), 0x1000);
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RawDevicePtr(u64);

// SAFETY: a transparent `u64`: every bit pattern is a value, zero among them.
unsafe impl bytemuck::Zeroable for RawDevicePtr {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for RawDevicePtr {}

// SAFETY: a device address is a plain 64-bit value, exactly what a pointer parameter holds.
unsafe impl DeviceRepr for RawDevicePtr {}
// SAFETY: the null address.
unsafe impl cudarc::driver::ValidAsZeroBits for RawDevicePtr {}

impl RawDevicePtr {
    /// The null device pointer.
    pub const NULL: RawDevicePtr = RawDevicePtr(0);

    /// Wraps a device address.
    ///
    /// ```
    /// assert!(!cuda_kernel_runtime::RawDevicePtr::from_addr(8).is_null());
    /// ```
    pub const fn from_addr(addr: u64) -> Self {
        RawDevicePtr(addr)
    }

    /// The device address.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::RawDevicePtr::from_addr(8).addr(), 8);
    /// ```
    pub const fn addr(self) -> u64 {
        self.0
    }

    /// Whether this is the null pointer.
    ///
    /// ```
    /// assert!(cuda_kernel_runtime::RawDevicePtr::NULL.is_null());
    /// ```
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }

    /// The address of device memory, a buffer or a view (no use is recorded: the caller
    /// orders the work that uses the address).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let buf = gpu.zeros::<f32>(16)?;
    /// let p = cuda_kernel_runtime::RawDevicePtr::of(&buf);
    /// assert_eq!(cuda_kernel_runtime::RawDevicePtr::of(&buf.slice(4..)), p.add::<f32>(4));
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn of<T, M: DeviceMemory<T> + ?Sized>(buf: &M) -> Self {
        RawDevicePtr(buf.address())
    }

    /// This address offset by `count` elements of `T`.
    ///
    /// ```
    /// let p = cuda_kernel_runtime::RawDevicePtr::from_addr(0x100);
    /// assert_eq!(p.add::<u32>(4).addr(), 0x110);
    /// ```
    pub const fn add<T>(self, count: u64) -> Self {
        RawDevicePtr(
            self.0
                .wrapping_add(count.wrapping_mul(std::mem::size_of::<T>() as u64)),
        )
    }
}

//! [`DeviceMemory`] and [`DeviceMemoryMut`]: the device memory the `Gpu` copies, fills and
//! downloads take. The runtime's [`TrackedBuffer`](crate::TrackedBuffer) and its views are
//! ordered across streams by the runtime's clocks; cudarc's buffers, views and managed memory
//! and managed slices by cudarc's events. Each kind prepares itself for a
//! use on a stream and records the use once the work is queued, as a kernel argument does.
//!
//! The traits and cudarc's kinds are here; each of the runtime's kinds implements them beside
//! itself (`tracked`, `ipc`), so this file names none of them.

use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, CudaView, CudaViewMut, UnifiedSlice, UnifiedView,
    UnifiedViewMut,
};

use crate::error::Error;
use crate::memory::prepared::PreparedBuffer;

/// Keeps the memory traits to the kinds this crate orders.
pub trait Sealed<T> {}

/// Device memory holding values of `T` that the `Gpu`'s copies, downloads and tensor maps
/// read: a [`TrackedBuffer`](crate::TrackedBuffer) (what [`Gpu::upload`](crate::Gpu::upload)
/// returns) or a view of one, or one of cudarc's buffers, views or managed slices.
///
/// ```no_run
/// use cuda_kernel_runtime::{DeviceMemory, Gpu};
/// fn first<M: DeviceMemory<u32>>(gpu: &Gpu, m: &M) -> Result<Option<u32>, cuda_kernel_runtime::Error> {
///     Ok(gpu.download(m)?.first().copied())
/// }
/// # let gpu = Gpu::new(0)?;
/// let x = gpu.upload(&[4u32, 5])?;
/// assert_eq!(first(&gpu, &x)?, Some(4));
/// assert_eq!(first(&gpu, &x.slice(1..))?, Some(5));
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub trait DeviceMemory<T>: Sealed<T> {
    /// Number of values.
    fn len(&self) -> usize;

    /// Whether it holds no value.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes `stream` wait for the writes a read there must follow; the returned value
    /// records the read once the work is queued.
    #[doc(hidden)]
    fn prepare_read(&self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'_>, Error>;

    /// The context the memory belongs to.
    #[doc(hidden)]
    fn context(&self) -> &Arc<CudaContext>;

    /// The stream cudarc's buffers were made on (their allocation is ordered there), `None`
    /// for the runtime's own buffers, whose allocation is a recorded use.
    #[doc(hidden)]
    fn own_stream(&self) -> Option<&Arc<CudaStream>>;

    /// The device address, with no use recorded (for descriptors whose launches order
    /// nothing themselves).
    #[doc(hidden)]
    fn address(&self) -> CUdeviceptr;
}

/// Device memory the `Gpu`'s uploads, fills and copies may write: a
/// [`TrackedBuffer`](crate::TrackedBuffer), a [`TrackedViewMut`](crate::TrackedViewMut), or
/// one of cudarc's mutable buffers and views.
///
/// ```no_run
/// use cuda_kernel_runtime::{DeviceMemoryMut, Gpu};
/// fn clear<M: DeviceMemoryMut<f32>>(gpu: &Gpu, m: &mut M) -> Result<(), cuda_kernel_runtime::Error> {
///     gpu.memset_zeros(m)
/// }
/// # let gpu = Gpu::new(0)?;
/// let mut x = gpu.upload(&[1.0f32, 2.0])?;
/// clear(&gpu, &mut x)?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub trait DeviceMemoryMut<T>: DeviceMemory<T> {
    /// Makes `stream` wait for every use a write there must follow; the returned value
    /// records the write once the work is queued.
    #[doc(hidden)]
    fn prepare_write(&mut self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'_>, Error>;
}

/// [`DeviceMemory`] (and [`DeviceMemoryMut`] where writable) for kinds ordered by their events
/// through cudarc's `DevicePtr`/`DevicePtrMut`: cudarc's own (below), and the runtime's kinds
/// that implement those traits, beside each kind (`ipc`).
macro_rules! cudarc_memory {
    ($($ty:ty => $mutable:tt),*) => {$(
        impl<T> $crate::memory::device_memory::Sealed<T> for $ty {}

        impl<T> $crate::memory::device_memory::DeviceMemory<T> for $ty {
            fn len(&self) -> usize {
                ::cudarc::driver::DeviceSlice::len(self)
            }

            fn prepare_read(
                &self,
                stream: &::std::sync::Arc<::cudarc::driver::CudaStream>,
            ) -> ::std::result::Result<
                $crate::memory::prepared::PreparedBuffer<'_>,
                $crate::error::Error,
            > {
                let (ptr, guard) = ::cudarc::driver::DevicePtr::device_ptr(self, stream);
                // SAFETY: the event lives in the buffer (or its parent), borrowed for the
                // result.
                Ok(unsafe { $crate::memory::prepared::split(ptr, guard) })
            }

            fn context(&self) -> &::std::sync::Arc<::cudarc::driver::CudaContext> {
                ::cudarc::driver::DeviceSlice::stream(self).context()
            }

            fn own_stream(&self) -> Option<&::std::sync::Arc<::cudarc::driver::CudaStream>> {
                Some(::cudarc::driver::DeviceSlice::stream(self))
            }

            fn address(&self) -> ::cudarc::driver::sys::CUdeviceptr {
                let (ptr, _record) = ::cudarc::driver::DevicePtr::device_ptr(
                    self,
                    ::cudarc::driver::DeviceSlice::stream(self),
                );
                ptr
            }
        }

        $crate::memory::device_memory::cudarc_memory!(@mut $ty, $mutable);
    )*};
    (@mut $ty:ty, mut) => {
        impl<T> $crate::memory::device_memory::DeviceMemoryMut<T> for $ty {
            fn prepare_write(
                &mut self,
                stream: &::std::sync::Arc<::cudarc::driver::CudaStream>,
            ) -> ::std::result::Result<
                $crate::memory::prepared::PreparedBuffer<'_>,
                $crate::error::Error,
            > {
                let (ptr, guard) = ::cudarc::driver::DevicePtrMut::device_ptr_mut(self, stream);
                // SAFETY: the event lives in the buffer (or its parent), mutably borrowed for
                // the result.
                Ok(unsafe { $crate::memory::prepared::split(ptr, guard) })
            }
        }
    };
    (@mut $ty:ty, ref) => {};
}

pub(crate) use cudarc_memory;

cudarc_memory!(
    CudaSlice<T> => mut,
    CudaView<'_, T> => ref,
    CudaViewMut<'_, T> => mut,
    UnifiedSlice<T> => mut,
    UnifiedView<'_, T> => ref,
    UnifiedViewMut<'_, T> => mut
);

//! [`DeviceMemory`] and [`DeviceMemoryMut`]: the device memory the `Gpu` copies, fills and
//! downloads take. The runtime's [`TrackedBuffer`](crate::TrackedBuffer) and its views are
//! ordered across streams by the runtime's clocks; cudarc's buffers, views and managed memory
//! and managed slices by cudarc's events. Each kind prepares itself for a
//! use on a stream and records the use once the work is queued, as a kernel argument does.

use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut,
    DeviceSlice, UnifiedSlice, UnifiedView, UnifiedViewMut,
};

use crate::error::Error;
use crate::memory::ipc::IpcBuffer;
use crate::memory::prepared::{PreparedBuffer, split};

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

/// [`DeviceMemory`] (and [`DeviceMemoryMut`] where writable) for cudarc's kinds, ordered by
/// their events through cudarc's `DevicePtr`/`DevicePtrMut`.
macro_rules! cudarc_memory {
    ($($ty:ty => $mutable:tt),*) => {$(
        impl<T> Sealed<T> for $ty {}

        impl<T> DeviceMemory<T> for $ty {
            fn len(&self) -> usize {
                DeviceSlice::len(self)
            }

            fn prepare_read(&self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'_>, Error> {
                let (ptr, guard) = DevicePtr::device_ptr(self, stream);
                // SAFETY: the event lives in the buffer (or its parent), borrowed for the
                // result.
                Ok(unsafe { split(ptr, guard) })
            }

            fn context(&self) -> &Arc<CudaContext> {
                DeviceSlice::stream(self).context()
            }

            fn own_stream(&self) -> Option<&Arc<CudaStream>> {
                Some(DeviceSlice::stream(self))
            }

            fn address(&self) -> CUdeviceptr {
                let (ptr, _record) = DevicePtr::device_ptr(self, DeviceSlice::stream(self));
                ptr
            }
        }

        cudarc_memory!(@mut $ty, $mutable);
    )*};
    (@mut $ty:ty, mut) => {
        impl<T> DeviceMemoryMut<T> for $ty {
            fn prepare_write(
                &mut self,
                stream: &Arc<CudaStream>,
            ) -> Result<PreparedBuffer<'_>, Error> {
                let (ptr, guard) = DevicePtrMut::device_ptr_mut(self, stream);
                // SAFETY: the event lives in the buffer (or its parent), mutably borrowed for
                // the result.
                Ok(unsafe { split(ptr, guard) })
            }
        }
    };
    (@mut $ty:ty, ref) => {};
}

cudarc_memory!(
    CudaSlice<T> => mut,
    CudaView<'_, T> => ref,
    CudaViewMut<'_, T> => mut,
    UnifiedSlice<T> => mut,
    UnifiedView<'_, T> => ref,
    UnifiedViewMut<'_, T> => mut,
    IpcBuffer<T> => mut
);

//! [`TrackedBuffer`](crate::TrackedBuffer) and its views as kernel arguments: each use makes
//! the launch's stream wait for what it must follow and is recorded once the launch is queued
//! (`TrackedBuffer::prepare_use`), with no event at all while the buffer stays on one stream.

use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::{ConstPtr, DeviceArg, MutPtr};
use crate::error::Error;
use crate::memory::prepared::PreparedBuffer;
use crate::memory::tracked::{Tracked, TrackedBuffer, TrackedView, TrackedViewMut};

/// Kernel-argument impls of the tracked kinds: `$read` are the forms that read, `$write`
/// those that may write.
macro_rules! tracked_kind {
    (read: [$($read:ty),*], write: [$($write:ty),*]) => {
        $(
            tracked_kind!(@arg $read, false);
            impl<'v, T> ConstPtr<T> for $read {}
        )*
        $(
            tracked_kind!(@arg $write, true);
            impl<'v, T> ConstPtr<T> for $write {}
            impl<'v, T> MutPtr<T> for $write {}
        )*
    };
    (@arg $ty:ty, $write:literal) => {
        impl<'v, T> DeviceArg for $ty {
            type Prepared<'a> = PreparedBuffer<'a> where Self: 'a;

            #[inline]
            fn prepare<'a>(
                &'a mut self,
                stream: &Arc<CudaStream>,
            ) -> Result<PreparedBuffer<'a>, Error> {
                let (buffer, offset, _) = Tracked::parts(&*self);
                buffer.prepare_use(stream, offset, $write)
            }

            #[inline]
            fn byte_len(&self) -> Option<usize> {
                let (_, _, len) = Tracked::parts(&*self);
                $write.then(|| len * std::mem::size_of::<T>())
            }
        }
    };
}

tracked_kind!(
    read: [&'v TrackedBuffer<T>, &'v TrackedView<'_, T>, TrackedView<'v, T>, &'v TrackedViewMut<'_, T>],
    write: [&'v mut TrackedBuffer<T>, &'v mut TrackedViewMut<'_, T>, TrackedViewMut<'v, T>]
);

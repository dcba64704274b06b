//! What a [`TensorMap`](super::TensorMap) keeps of the buffer it describes, so that a launch
//! passing the map orders the buffer's uses as a pointer argument would: a map made by
//! `tiled`, `tiled_with` or `im2col` reads the buffer, one made by `tiled_mut` writes it.
//!
//! A read map keeps a shared borrow and prepares a read at each launch. A write map keeps the
//! exclusive borrow behind a lock held from the launch's preparation to its finish, so that
//! two launches through one map on two threads are ordered one after the other (each takes the
//! buffer mutably, as a `&mut` argument would).

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use cudarc::driver::CudaStream;

use crate::error::Error;
use crate::memory::device_memory::{DeviceMemory, DeviceMemoryMut};
use crate::memory::prepared::PreparedBuffer;

/// The buffer behind a map, prepared for each launch that passes the map.
pub(super) trait Source: Send + Sync {
    /// Makes `stream` wait for the uses the map's use there must follow.
    fn prepare(&self, stream: &Arc<CudaStream>) -> Result<SourceUse<'_>, Error>;
}

/// A prepared use of a map's buffer, recorded by [`SourceUse::finish`] once the launch is
/// queued.
pub(crate) struct SourceUse<'s> {
    buffer: PreparedBuffer<'s>,
    /// A write map's lock, held until the use is recorded.
    _exclusive: Option<MutexGuard<'s, ()>>,
}

impl SourceUse<'_> {
    /// Records the use on `stream`, then lets the next launch through the map begin.
    pub(crate) fn finish(self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        self.buffer.finish(stream)
    }
}

/// A buffer a map reads.
pub(super) struct Reads<'a, T, M: ?Sized> {
    buffer: &'a M,
    _values: PhantomData<fn() -> T>,
}

impl<'a, T, M: ?Sized> Reads<'a, T, M> {
    pub(super) fn new(buffer: &'a M) -> Self {
        Reads {
            buffer,
            _values: PhantomData,
        }
    }
}

impl<T, M: DeviceMemory<T> + Sync + ?Sized> Source for Reads<'_, T, M> {
    fn prepare(&self, stream: &Arc<CudaStream>) -> Result<SourceUse<'_>, Error> {
        Ok(SourceUse {
            buffer: self.buffer.prepare_read(stream)?,
            _exclusive: None,
        })
    }
}

/// A buffer a map writes, borrowed exclusively for `'a`.
pub(super) struct Writes<'a, T, M: ?Sized> {
    /// Held while a launch through the map is prepared and queued; whoever holds it is the
    /// only one to reach the buffer.
    lock: Mutex<()>,
    buffer: NonNull<M>,
    _borrow: PhantomData<&'a mut M>,
    _values: PhantomData<fn() -> T>,
}

impl<'a, T, M: ?Sized> Writes<'a, T, M> {
    pub(super) fn new(buffer: &'a mut M) -> Self {
        Writes {
            lock: Mutex::new(()),
            buffer: NonNull::from(buffer),
            _borrow: PhantomData,
            _values: PhantomData,
        }
    }
}

// SAFETY: `Writes` owns an exclusive borrow of `M`, reached only under its lock: it may move
// to and be shared with other threads when `M` may move (as for `Mutex<&mut M>`).
unsafe impl<T, M: Send + ?Sized> Send for Writes<'_, T, M> {}
// SAFETY: as above.
unsafe impl<T, M: Send + ?Sized> Sync for Writes<'_, T, M> {}

impl<T, M: DeviceMemoryMut<T> + Send + ?Sized> Source for Writes<'_, T, M> {
    fn prepare(&self, stream: &Arc<CudaStream>) -> Result<SourceUse<'_>, Error> {
        let guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: the buffer is borrowed exclusively for `'a`, which outlives `&self`; while
        // the guard lives (until the use is finished) no other `&mut` to it is made here.
        let buffer = unsafe { &mut *self.buffer.as_ptr() };
        Ok(SourceUse {
            buffer: buffer.prepare_write(stream)?,
            _exclusive: Some(guard),
        })
    }
}

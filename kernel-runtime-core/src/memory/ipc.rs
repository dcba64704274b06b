//! Inter-process sharing: a device buffer or an event of one process opened in another
//! (`cuIpcGetMemHandle`, `cuIpcOpenMemHandle`, `cuIpcGetEventHandle`, `cuIpcOpenEventHandle`).
//!
//! Memory to export is allocated with [`Gpu::ipc_alloc`] (`cuMemAlloc`): the stream-ordered
//! pool memory that `CudaSlice`s come from cannot be exported this way (a shareable
//! `MemoryPool`'s can, by its own calls: `pool_ipc`). Handles are plain bytes ([`IpcMemHandle::to_bytes`], [`IpcEventHandle::to_bytes`]) to send
//! over any channel (a pipe, a socket, a file). A memory handle carries the element type's size
//! and the element count, checked when opened. The exporting process must keep the buffer
//! alive while others use it; an [`IpcBuffer`] is unmapped when dropped. Work is ordered across
//! processes with an [`IpcEvent`]: the writer records it, the reader waits on it.
//! Linux only (the driver's restriction); both processes must see the same device.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaStream, DevicePtr, DevicePtrMut, DeviceSlice, SyncOnDrop,
};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::memory::buffers::byte_len;
use crate::memory::prepared::PreparedBuffer;

/// Bytes of the driver's interprocess handles (and of a pool pointer's export data).
pub(crate) const HANDLE: usize = 64;

/// A device buffer's handle for another process ([`Gpu::ipc_handle`]).
///
/// ```
/// use cuda_kernel_runtime::IpcMemHandle;
/// let bytes = [0u8; IpcMemHandle::<f32>::BYTES];
/// let h = IpcMemHandle::<f32>::from_bytes(&bytes).unwrap();
/// assert_eq!(h.len(), 0);
/// assert!(IpcMemHandle::<f64>::from_bytes(&bytes[..10]).is_err());
/// ```
#[derive(Clone, Copy)]
pub struct IpcMemHandle<T> {
    raw: [u8; HANDLE],
    len: usize,
    marker: PhantomData<fn() -> T>,
}

impl<T> IpcMemHandle<T> {
    /// Size of [`IpcMemHandle::to_bytes`]: the driver's 64 bytes, the element size, the count.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::IpcMemHandle::<u8>::BYTES, 80);
    /// ```
    pub const BYTES: usize = HANDLE + 16;

    /// Elements in the shared buffer.
    ///
    /// ```
    /// let h = cuda_kernel_runtime::IpcMemHandle::<f32>::from_bytes(&[0u8; 80]).unwrap();
    /// assert_eq!(h.len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the shared buffer is empty.
    ///
    /// ```
    /// let h = cuda_kernel_runtime::IpcMemHandle::<f32>::from_bytes(&[0u8; 80]).unwrap();
    /// assert!(h.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The handle as bytes, to send to another process.
    ///
    /// ```
    /// let h = cuda_kernel_runtime::IpcMemHandle::<f32>::from_bytes(&[0u8; 80]).unwrap();
    /// assert_eq!(h.to_bytes().len(), 80);
    /// ```
    pub fn to_bytes(&self) -> [u8; HANDLE + 16] {
        typed_to_bytes::<T>(&self.raw, self.len)
    }

    /// A handle from [`IpcMemHandle::to_bytes`]'s bytes.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for a wrong length, or an element size other than `T`'s (a
    /// buffer of another type).
    ///
    /// ```
    /// use cuda_kernel_runtime::IpcMemHandle;
    /// assert!(IpcMemHandle::<f32>::from_bytes(&[0u8; 79]).is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (raw, len) = typed_from_bytes::<T>("IpcMemHandle::from_bytes", bytes)?;
        Ok(IpcMemHandle {
            raw,
            len,
            marker: PhantomData,
        })
    }
}

/// Checks that the allocation mapped at `ptr`, just mapped from another process's description
/// (a `described`, which `what` read), holds the `len` values of `T` that description claims:
/// the count came from that process.
///
/// # Safety
/// `ptr` is an address just mapped, with a context of its device current.
///
/// # Errors
/// The driver's failure to tell the allocation's size; [`Error::OutOfRange`] (as `what`) when
/// it holds fewer bytes than claimed.
pub(crate) unsafe fn check_mapped_len<T>(
    ptr: CUdeviceptr,
    len: usize,
    what: &'static str,
    described: &str,
) -> Result<(), Error> {
    // SAFETY: forwarded to the caller.
    let (base, size) =
        unsafe { driver::memory::address_range(ptr) }.call("cuMemGetAddressRange")?;
    let room = room_from(ptr, base, size);
    if holds::<T>(len, room) {
        return Ok(());
    }
    Err(Error::OutOfRange {
        what,
        problem: format!(
            "the {described} describes {len} element(s) of {} bytes, but the allocation it \
             maps holds {room} bytes",
            std::mem::size_of::<T>(),
        ),
    })
}

/// The bytes from `ptr` to the end of the allocation of `size` bytes at `base` (none when
/// `ptr` lies outside it).
fn room_from(ptr: CUdeviceptr, base: CUdeviceptr, size: usize) -> usize {
    ptr.checked_sub(base)
        .and_then(|offset| usize::try_from(offset).ok())
        .and_then(|offset| size.checked_sub(offset))
        .unwrap_or(0)
}

/// Whether `room` bytes hold `len` values of `T`.
fn holds<T>(len: usize, room: usize) -> bool {
    len.checked_mul(std::mem::size_of::<T>())
        .is_some_and(|bytes| bytes <= room)
}

/// A driver's 64-byte handle of `len` values of `T` as bytes: the handle, the element size and
/// the count (both little-endian `u64`s).
pub(crate) fn typed_to_bytes<T>(raw: &[u8; HANDLE], len: usize) -> [u8; HANDLE + 16] {
    let mut out = [0u8; HANDLE + 16];
    out[..HANDLE].copy_from_slice(raw);
    out[HANDLE..HANDLE + 8].copy_from_slice(&(std::mem::size_of::<T>() as u64).to_le_bytes());
    out[HANDLE + 8..].copy_from_slice(&(len as u64).to_le_bytes());
    out
}

/// The handle and the count from [`typed_to_bytes`]'s bytes.
///
/// # Errors
/// [`Error::OutOfRange`] (as `what`) for a wrong length, or an element size other than `T`'s.
pub(crate) fn typed_from_bytes<T>(
    what: &'static str,
    bytes: &[u8],
) -> Result<([u8; HANDLE], usize), Error> {
    let bad = |problem: String| Error::OutOfRange { what, problem };
    let bytes: &[u8; HANDLE + 16] = bytes
        .try_into()
        .map_err(|_| bad(format!("{} bytes, expected {}", bytes.len(), HANDLE + 16)))?;
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let (size, len) = (word(HANDLE), word(HANDLE + 8));
    let expected = std::mem::size_of::<T>() as u64;
    if size != expected && !(size == 0 && len == 0) {
        return Err(bad(format!(
            "the buffer holds {size}-byte elements, `{}` has {expected}",
            std::any::type_name::<T>()
        )));
    }
    let mut raw = [0u8; HANDLE];
    raw.copy_from_slice(&bytes[..HANDLE]);
    Ok((raw, len as usize))
}

/// An event's handle for another process ([`IpcEvent::handle`]).
///
/// ```
/// let h = cuda_kernel_runtime::IpcEventHandle::from_bytes(&[0u8; 64]).unwrap();
/// assert_eq!(h.to_bytes(), [0u8; 64]);
/// ```
#[derive(Clone, Copy)]
pub struct IpcEventHandle([u8; HANDLE]);

impl IpcEventHandle {
    /// The handle as bytes.
    ///
    /// ```
    /// let h = cuda_kernel_runtime::IpcEventHandle::from_bytes(&[7u8; 64]).unwrap();
    /// assert_eq!(h.to_bytes()[0], 7);
    /// ```
    pub fn to_bytes(&self) -> [u8; HANDLE] {
        self.0
    }

    /// A handle from [`IpcEventHandle::to_bytes`]'s bytes.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] unless `bytes` has 64 bytes.
    ///
    /// ```
    /// assert!(cuda_kernel_runtime::IpcEventHandle::from_bytes(&[0u8; 3]).is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let raw: [u8; HANDLE] = bytes.try_into().map_err(|_| Error::OutOfRange {
            what: "IpcEventHandle::from_bytes",
            problem: format!("{} bytes, expected {HANDLE}", bytes.len()),
        })?;
        Ok(IpcEventHandle(raw))
    }
}

/// A device buffer shared between processes: allocated here for export ([`Gpu::ipc_alloc`],
/// freed when dropped) or another process's, mapped into this one ([`Gpu::open_ipc`],
/// unmapped when dropped). A kernel argument and a copy source or destination like a
/// `CudaSlice`.
///
/// ```no_run
/// use cuda_kernel_runtime::{Gpu, IpcMemHandle};
/// # fn received() -> Vec<u8> { vec![] }
/// let gpu = Gpu::new(0)?;
/// let handle = IpcMemHandle::<f32>::from_bytes(&received())?;
/// let shared = gpu.open_ipc(&handle)?;
/// let values = gpu.download(&shared)?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct IpcBuffer<T> {
    ptr: CUdeviceptr,
    len: usize,
    stream: Arc<CudaStream>,
    /// Recorded after every use; waited on before the next and before unmapping.
    event: CudaEvent,
    /// Allocated here (freed on drop) rather than opened (closed on drop).
    owned: bool,
    marker: PhantomData<*const T>,
}

// SAFETY: the mapping is a device address usable from any thread; uses are ordered by `event`.
unsafe impl<T: Send> Send for IpcBuffer<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for IpcBuffer<T> {}

impl<T> IpcBuffer<T> {
    /// Elements in the shared buffer.
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{Gpu, IpcMemHandle};
    /// # let gpu = Gpu::new(0)?;
    /// # let handle = IpcMemHandle::<f32>::from_bytes(&[0u8; 80])?;
    /// let shared = gpu.open_ipc(&handle)?;
    /// println!("{} elements", shared.len());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the shared buffer is empty.
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{Gpu, IpcMemHandle};
    /// # let gpu = Gpu::new(0)?;
    /// # let handle = IpcMemHandle::<f32>::from_bytes(&[0u8; 80])?;
    /// assert!(!gpu.open_ipc(&handle)?.is_empty());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T> Drop for IpcBuffer<T> {
    fn drop(&mut self) {
        let ctx = self.stream.context();
        ctx.record_err(self.event.synchronize());
        let released = if self.owned {
            // SAFETY: allocated by cuMemAlloc in `ipc_alloc`; every use has completed.
            unsafe { driver::memory::memory_free(self.ptr) }
        } else {
            // SAFETY: opened by cuIpcOpenMemHandle; every use has completed.
            unsafe { driver::ipc::close_mem_handle(self.ptr) }
        };
        ctx.record_err(released);
    }
}

impl<T> DeviceSlice<T> for IpcBuffer<T> {
    fn len(&self) -> usize {
        self.len
    }

    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

impl<T> DevicePtr<T> for IpcBuffer<T> {
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (CUdeviceptr, SyncOnDrop<'a>) {
        stream.context().record_err(stream.wait(&self.event));
        (self.ptr, SyncOnDrop::Record(Some((&self.event, stream))))
    }
}

impl<T> DevicePtrMut<T> for IpcBuffer<T> {
    fn device_ptr_mut<'a>(&'a mut self, stream: &'a CudaStream) -> (CUdeviceptr, SyncOnDrop<'a>) {
        stream.context().record_err(stream.wait(&self.event));
        (self.ptr, SyncOnDrop::Record(Some((&self.event, stream))))
    }
}

// The `Gpu`'s copies take it as they take cudarc's buffers: through the events above.
crate::memory::device_memory::cudarc_memory!(IpcBuffer<T> => mut);

impl<T> IpcBuffer<T> {
    /// Waits on the buffer's last use, and records this one after the launch.
    pub(crate) fn prepare_use(
        &self,
        stream: &Arc<CudaStream>,
    ) -> Result<PreparedBuffer<'_>, Error> {
        stream.wait(&self.event).call("cuStreamWaitEvent")?;
        Ok(PreparedBuffer::new(self.ptr, Some(&self.event), true))
    }
}

/// An event shared between processes: created here ([`Gpu::ipc_event`]) or opened from
/// another process's handle ([`Gpu::open_ipc_event`]).
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let done = gpu.ipc_event()?;
/// // ... launch the kernels that write the shared buffer ...
/// done.record(&gpu)?;
/// let bytes = done.handle()?.to_bytes(); // send to the reader, which waits on it
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct IpcEvent {
    raw: sys::CUevent,
    ctx: Arc<CudaContext>,
}

// SAFETY: a driver event handle, usable from any thread with its context current.
unsafe impl Send for IpcEvent {}
// SAFETY: as above.
unsafe impl Sync for IpcEvent {}

impl Drop for IpcEvent {
    fn drop(&mut self) {
        // SAFETY: created or opened here, destroyed once.
        let destroyed = unsafe { driver::event::destroy(self.raw) };
        self.ctx.record_err(destroyed);
    }
}

impl IpcEvent {
    /// The handle to send to another process.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let done = gpu.ipc_event()?;
    /// done.record(&gpu)?;
    /// let bytes = done.handle()?.to_bytes(); // the reader: open_ipc_event(..)?.wait_on(&gpu)
    /// done.synchronize()?;
    /// # let _ = bytes;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn handle(&self) -> Result<IpcEventHandle, Error> {
        // SAFETY: an interprocess event.
        let h = unsafe { driver::ipc::get_event_handle(self.raw) }.call("cuIpcGetEventHandle")?;
        Ok(IpcEventHandle(h.reserved.map(|c| c as u8)))
    }

    /// Records the event on `gpu`'s stream.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let done = gpu.ipc_event()?;
    /// done.record(&gpu)?;
    /// let bytes = done.handle()?.to_bytes(); // the reader: open_ipc_event(..)?.wait_on(&gpu)
    /// done.synchronize()?;
    /// # let _ = bytes;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn record(&self, gpu: &Gpu) -> Result<(), Error> {
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: a live event and stream of this context.
        unsafe { driver::event::record(self.raw, gpu.stream().cu_stream()) }.call("cuEventRecord")
    }

    /// Makes `gpu`'s stream wait for the event's last recording.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let done = gpu.ipc_event()?;
    /// done.record(&gpu)?;
    /// let bytes = done.handle()?.to_bytes(); // the reader: open_ipc_event(..)?.wait_on(&gpu)
    /// done.synchronize()?;
    /// # let _ = bytes;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn wait_on(&self, gpu: &Gpu) -> Result<(), Error> {
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: a live event and stream.
        unsafe {
            driver::stream::wait_event(
                gpu.stream().cu_stream(),
                self.raw,
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .call("cuStreamWaitEvent")
    }

    /// Blocks the host until the event's last recording has completed.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let done = gpu.ipc_event()?;
    /// done.record(&gpu)?;
    /// let bytes = done.handle()?.to_bytes(); // the reader: open_ipc_event(..)?.wait_on(&gpu)
    /// done.synchronize()?;
    /// # let _ = bytes;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<(), Error> {
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: a live event.
        unsafe { driver::event::synchronize(self.raw) }.call("cuEventSynchronize")
    }
}

impl Gpu {
    /// The handle of `buf` for another process.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let buf = gpu.ipc_alloc::<f32>(3)?;
    /// let bytes = gpu.ipc_handle(&buf)?.to_bytes(); // keep `buf` alive while shared
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a buffer opened from another process's handle.
    pub fn ipc_handle<T>(&self, buf: &IpcBuffer<T>) -> Result<IpcMemHandle<T>, Error> {
        if !buf.owned {
            return Err(self.unsupported(
                "re-exporting another process's buffer",
                "only buffers from `ipc_alloc` can be exported",
            ));
        }
        let ptr = buf.ptr;
        self.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: `ptr` is the base of a live allocation of this context.
        let h = unsafe { driver::ipc::get_mem_handle(ptr) }.call("cuIpcGetMemHandle")?;
        Ok(IpcMemHandle {
            raw: h.reserved.map(|c| c as u8),
            len: buf.len(),
            marker: PhantomData,
        })
    }

    /// Maps another process's buffer into this one.
    ///
    /// # Errors
    /// A driver error when the handle is stale (its buffer freed), from this same process,
    /// or from a device this one cannot reach; [`Error::OutOfRange`] when the handle
    /// describes more elements than the allocation it maps holds (the length is checked, as
    /// it came from another process).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::IpcMemHandle;
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let bytes = [0u8; 80];
    /// let shared = gpu.open_ipc(&IpcMemHandle::<f32>::from_bytes(&bytes)?)?;
    /// let values = gpu.download(&shared)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn open_ipc<T>(&self, handle: &IpcMemHandle<T>) -> Result<IpcBuffer<T>, Error> {
        let ctx = self.context();
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let h = sys::CUipcMemHandle {
            reserved: handle.raw.map(|b| b as _),
        };
        let flags = sys::CUipcMem_flags::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS as u32;
        // SAFETY: the context is current; the driver validates the handle.
        let ptr = unsafe { driver::ipc::open_mem_handle(h, flags) }.call("cuIpcOpenMemHandle")?;
        // SAFETY: an address just mapped, with its context current.
        let fits =
            unsafe { check_mapped_len::<T>(ptr, handle.len, "Gpu::open_ipc", "IpcMemHandle") };
        if let Err(e) = fits {
            // SAFETY: just opened, never used.
            let _ = unsafe { driver::ipc::close_mem_handle(ptr) };
            return Err(e);
        }
        let event = match ctx.new_event(None) {
            Ok(e) => e,
            Err(e) => {
                // SAFETY: just opened, never used.
                let _ = unsafe { driver::ipc::close_mem_handle(ptr) };
                return Err(Error::driver("cuEventCreate", e));
            }
        };
        Ok(IpcBuffer {
            ptr,
            len: handle.len,
            stream: self.stream().clone(),
            event,
            owned: false,
            marker: PhantomData,
        })
    }

    /// A zeroed device buffer of `len` elements that other processes can open
    /// ([`Gpu::ipc_handle`]).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut shared = gpu.ipc_alloc::<f32>(1024)?;
    /// gpu.upload_into(&[1.0f32; 1024], &mut shared)?;
    /// let bytes = gpu.ipc_handle(&shared)?.to_bytes();
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn ipc_alloc<T: cudarc::driver::DeviceRepr>(
        &self,
        len: usize,
    ) -> Result<IpcBuffer<T>, Error> {
        let bytes = byte_len::<T>("ipc_alloc", len)?.max(1);
        let ctx = self.context();
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: the context is current.
        let ptr = unsafe { driver::memory::malloc_sync(bytes) }.call("cuMemAlloc")?;
        let buf = IpcBuffer {
            ptr,
            len,
            stream: self.stream().clone(),
            event: match ctx.new_event(None) {
                Ok(e) => e,
                Err(e) => {
                    // SAFETY: just allocated, never used.
                    let _ = unsafe { driver::memory::memory_free(ptr) };
                    return Err(Error::driver("cuEventCreate", e));
                }
            },
            owned: true,
            marker: PhantomData,
        };
        let stream = self.stream();
        // SAFETY: the whole allocation, queued on the stream and recorded below.
        unsafe { driver::memory::memset_d8_async(ptr, 0, bytes, stream.cu_stream()) }
            .call("cuMemsetD8Async")?;
        buf.event.record(stream).call("cuEventRecord")?;
        Ok(buf)
    }

    /// A new event that other processes can open (interprocess, without timing).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let done = gpu.ipc_event()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn ipc_event(&self) -> Result<IpcEvent, Error> {
        let ctx = self.context().clone();
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let flags = sys::CUevent_flags::CU_EVENT_INTERPROCESS as u32
            | sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;
        // SAFETY: the context is current; the event is destroyed once, on drop.
        let raw = unsafe { driver::ipc::event_create(flags) }.call("cuEventCreate")?;
        Ok(IpcEvent { raw, ctx })
    }

    /// Opens another process's event.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::IpcEventHandle;
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let bytes = [0u8; 64];
    /// gpu.open_ipc_event(&IpcEventHandle::from_bytes(&bytes)?)?.wait_on(&gpu)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn open_ipc_event(&self, handle: &IpcEventHandle) -> Result<IpcEvent, Error> {
        let ctx = self.context().clone();
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let h = sys::CUipcEventHandle {
            reserved: handle.0.map(|b| b as _),
        };
        // SAFETY: the context is current; the driver validates the handle.
        let raw = unsafe { driver::ipc::open_event_handle(h) }.call("cuIpcOpenEventHandle")?;
        Ok(IpcEvent { raw, ctx })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapped_allocation_holds_what_fits_from_the_address_to_its_end() {
        let base = 0x7f00_0000_0000;
        assert_eq!(room_from(base, base, 1 << 20), 1 << 20);
        assert_eq!(room_from(base + 256, base, 1024), 768);
        assert_eq!(room_from(base + 2048, base, 1024), 0, "past the end");
        assert_eq!(room_from(base - 4, base, 1024), 0, "before the base");
        assert!(holds::<f32>(262_144, 1 << 20));
        assert!(!holds::<f32>(262_145, 1 << 20), "one element too many");
        assert!(
            !holds::<f64>(usize::MAX / 4, usize::MAX),
            "an overflowing count"
        );
        assert!(holds::<u8>(0, 0));
    }
}

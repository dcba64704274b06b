//! Memory pools shared between processes (Linux): a pool made shareable
//! ([`PoolOptions::shareable`](crate::PoolOptions::shareable)) is exported as a POSIX file
//! descriptor (`cuMemPoolExportToShareableHandle`) and imported from it in another process
//! (`cuMemPoolImportFromShareableHandle`); each buffer to share is exported as 64 bytes of
//! plain data (`cuMemPoolExportPointer`, [`PoolPointer`]) and imported from the imported pool
//! (`cuMemPoolImportPointer`) as a [`TrackedBuffer`].
//!
//! The pointer's bytes go over any channel. The descriptor must reach the other process as a
//! descriptor: [`MemoryPool::send_handle`] / [`MemoryPool::receive_handle`] pass it over a Unix
//! socket (`fd_socket`); a program with its own way (`pidfd_getfd`, inheritance) uses
//! [`MemoryPool::export_handle`] / [`MemoryPool::import_handle`].
//!
//! The driver's two rules: the importer must not touch the memory before the exporter's
//! allocation (and the writes it wants seen) have completed, and every importer must have
//! freed its import, and that free completed, before the exporter frees the allocation.

use std::marker::PhantomData;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;

use cudarc::driver::{DeviceRepr, sys};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::memory::fd_socket::{receive_fd, send_fd};
use crate::memory::ipc::{HANDLE, check_mapped_len, typed_from_bytes, typed_to_bytes};
use crate::memory::pool::{MemoryPool, Origin};
use crate::memory::tracked::TrackedBuffer;

/// One buffer of a shareable pool, described for another process
/// ([`MemoryPool::export_pointer`]): the driver's 64 bytes of export data, with the element
/// size and count (checked when imported). Plain data, sent as bytes over any channel.
///
/// ```
/// use cuda_kernel_runtime::PoolPointer;
/// let bytes = [0u8; PoolPointer::<f32>::BYTES];
/// let p = PoolPointer::<f32>::from_bytes(&bytes)?;
/// assert_eq!(PoolPointer::<f32>::from_bytes(&p.to_bytes())?.len(), p.len());
/// assert!(PoolPointer::<f64>::from_bytes(&bytes[..10]).is_err());
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct PoolPointer<T> {
    raw: [u8; HANDLE],
    len: usize,
    marker: PhantomData<fn() -> T>,
}

impl<T> PoolPointer<T> {
    /// Size of [`PoolPointer::to_bytes`]: the driver's 64 bytes, the element size, the count.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::PoolPointer::<u8>::BYTES, 80);
    /// ```
    pub const BYTES: usize = HANDLE + 16;

    /// Elements in the buffer.
    ///
    /// ```
    /// let p = cuda_kernel_runtime::PoolPointer::<u32>::from_bytes(&[0u8; 80])?;
    /// assert_eq!(p.len(), 0);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer is empty.
    ///
    /// ```
    /// let p = cuda_kernel_runtime::PoolPointer::<u32>::from_bytes(&[0u8; 80])?;
    /// assert!(p.is_empty());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The description as bytes, to send to another process.
    ///
    /// ```
    /// let p = cuda_kernel_runtime::PoolPointer::<f32>::from_bytes(&[0u8; 80])?;
    /// assert_eq!(p.to_bytes().len(), 80);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn to_bytes(&self) -> [u8; HANDLE + 16] {
        typed_to_bytes::<T>(&self.raw, self.len)
    }

    /// A description from [`PoolPointer::to_bytes`]'s bytes.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for a wrong length, or an element size other than `T`'s.
    ///
    /// ```
    /// use cuda_kernel_runtime::PoolPointer;
    /// let mut bytes = [0u8; 80];
    /// bytes[64] = 4; // 4-byte elements
    /// bytes[72] = 3; // 3 of them
    /// assert_eq!(PoolPointer::<f32>::from_bytes(&bytes)?.len(), 3);
    /// assert!(PoolPointer::<f64>::from_bytes(&bytes).is_err());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (raw, len) = typed_from_bytes::<T>("PoolPointer::from_bytes", bytes)?;
        Ok(PoolPointer {
            raw,
            len,
            marker: PhantomData,
        })
    }
}

impl<T> std::fmt::Debug for PoolPointer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoolPointer")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl MemoryPool {
    /// A new file descriptor of this shareable pool, for another process to import
    /// ([`import_handle`](Self::import_handle)); close it (drop it) once sent.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Gpu, MemoryPool, PoolOptions};
    /// let gpu = Gpu::new(0)?;
    /// let pool = MemoryPool::new(&gpu, PoolOptions::new().shareable(true))?;
    /// let fd = pool.export_handle()?; // pass it on by SCM_RIGHTS, pidfd_getfd, ...
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a pool not made shareable; the driver's failures.
    pub fn export_handle(&self) -> Result<OwnedFd, Error> {
        self.shared("exporting a memory pool")?;
        // SAFETY: a live pool made with the POSIX file descriptor handle type.
        let fd = unsafe { driver::memory::pool_export_fd(self.cu_pool()) }
            .call("cuMemPoolExportToShareableHandle")?;
        self.mark_handle_exported();
        // SAFETY: a new descriptor the driver gave us to own.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// Another process's pool, from a descriptor of it
    /// ([`export_handle`](Self::export_handle)'s, passed to this process), used from `gpu`'s
    /// device (given read and write access if it lacks them). The descriptor may be closed
    /// afterwards. Such a pool only imports the other process's buffers
    /// ([`import_pointer`](Self::import_pointer)); it cannot allocate.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Gpu, MemoryPool};
    /// # fn received() -> std::os::fd::OwnedFd { unimplemented!() }
    /// let gpu = Gpu::new(0)?;
    /// let fd = received();
    /// let pool = MemoryPool::import_handle(&gpu, std::os::fd::AsFd::as_fd(&fd))?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// The driver's failures (`CUDA_ERROR_INVALID_VALUE` for a descriptor that is not a
    /// pool's).
    pub fn import_handle(gpu: &Gpu, fd: BorrowedFd<'_>) -> Result<MemoryPool, Error> {
        gpu.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: the driver is initialised (a `Gpu` exists) and validates the descriptor.
        let raw = unsafe { driver::memory::pool_import_fd(fd.as_raw_fd()) }
            .call("cuMemPoolImportFromShareableHandle")?;
        let pool = MemoryPool::from_raw(raw, gpu, Origin::Imported);
        pool.grant_access(gpu)?;
        Ok(pool)
    }

    /// Sends a descriptor of this shareable pool over `socket` (`SCM_RIGHTS`), for the process
    /// at the other end's [`receive_handle`](Self::receive_handle). Anything sent on the socket
    /// afterwards (a [`PoolPointer`]'s bytes) stays for the receiver to read.
    ///
    /// ```no_run
    /// use std::io::Write;
    /// use std::os::unix::net::UnixStream;
    /// use cuda_kernel_runtime::{Gpu, MemoryPool, PoolOptions};
    /// let gpu = Gpu::new(0)?;
    /// let pool = MemoryPool::new(&gpu, PoolOptions::new().shareable(true))?;
    /// let x = pool.upload(&gpu, &[1.0f32; 256])?;
    /// gpu.synchronize()?; // the other process may touch it only once written
    /// let mut socket = UnixStream::connect("/tmp/reader.sock").expect("the reader listens");
    /// pool.send_handle(&socket)?;
    /// socket.write_all(&pool.export_pointer(&x)?.to_bytes()).expect("sent");
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a pool not made shareable; [`Error::HandleTransfer`] when the
    /// socket fails; the driver's failures.
    pub fn send_handle(&self, socket: &UnixStream) -> Result<(), Error> {
        let fd = self.export_handle()?;
        send_fd(socket, fd.as_fd()).map_err(|source| Error::HandleTransfer {
            what: "sending a memory pool's file descriptor",
            source,
        })
    }

    /// Receives a pool [`send_handle`](Self::send_handle) sent over `socket`, and imports it
    /// for `gpu`'s device ([`import_handle`](Self::import_handle)).
    ///
    /// ```no_run
    /// use std::io::Read;
    /// use std::os::unix::net::UnixListener;
    /// use cuda_kernel_runtime::{Gpu, MemoryPool, PoolPointer};
    /// let gpu = Gpu::new(0)?;
    /// let listener = UnixListener::bind("/tmp/reader.sock").expect("bound");
    /// let (mut socket, _) = listener.accept().expect("a writer");
    /// let pool = MemoryPool::receive_handle(&gpu, &socket)?;
    /// let mut bytes = [0u8; PoolPointer::<f32>::BYTES];
    /// socket.read_exact(&mut bytes).expect("received");
    /// let x = pool.import_pointer(&gpu, &PoolPointer::<f32>::from_bytes(&bytes)?)?;
    /// println!("{:?}", &x.download(&gpu)?[..4]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::HandleTransfer`] when the socket fails or what came is not one descriptor sent
    /// by `send_handle`; the driver's failures.
    pub fn receive_handle(gpu: &Gpu, socket: &UnixStream) -> Result<MemoryPool, Error> {
        let fd = receive_fd(socket).map_err(|source| Error::HandleTransfer {
            what: "receiving a memory pool's file descriptor",
            source,
        })?;
        Self::import_handle(gpu, fd.as_fd())
    }

    /// Describes `buffer`, allocated from this shareable pool, for another process that
    /// imported the pool ([`import_pointer`](Self::import_pointer)). That process may use the
    /// memory only once the allocation and the writes it should see have completed (wait for
    /// them, with `gpu.synchronize()` or an `IpcEvent`, before sending), and must drop its
    /// import before `buffer` is dropped here.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Gpu, MemoryPool, PoolOptions};
    /// let gpu = Gpu::new(0)?;
    /// let pool = MemoryPool::new(&gpu, PoolOptions::new().shareable(true))?;
    /// let x = pool.upload(&gpu, &[7u32; 16])?;
    /// let bytes = pool.export_pointer(&x)?.to_bytes(); // 80 bytes to send
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a pool not made shareable; [`Error::OutOfRange`] for a buffer
    /// of another pool, or an empty one (no allocation); the driver's failures.
    pub fn export_pointer<T>(&self, buffer: &TrackedBuffer<T>) -> Result<PoolPointer<T>, Error> {
        self.shared("exporting a buffer of a memory pool")?;
        let problem = if buffer.pool() != Some(self) {
            Some("the buffer was not allocated from this pool")
        } else if buffer.base() == 0 {
            Some("an empty buffer has no allocation to export")
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(Error::OutOfRange {
                what: "MemoryPool::export_pointer",
                problem: problem.to_owned(),
            });
        }
        buffer.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // The driver exports a pointer only of a pool whose handle it has exported: do that
        // once first (the descriptor closed at once) when the program has not yet.
        if !self.handle_exported() {
            drop(self.export_handle()?);
        }
        // SAFETY: the base of a live allocation of this shareable pool.
        let data = unsafe { driver::memory::pool_export_pointer(buffer.base()) }
            .call("cuMemPoolExportPointer")?;
        Ok(PoolPointer {
            raw: data.reserved,
            len: buffer.len(),
            marker: PhantomData,
        })
    }

    /// Maps the buffer `pointer` describes, an allocation of the process this pool was
    /// imported from, into this one: a [`TrackedBuffer`] used from `gpu`'s stream like any
    /// other (a kernel argument, a copy's source or destination), freed stream-ordered when
    /// dropped (`cuMemFreeAsync`). Drop it, and let the free complete (`gpu.synchronize()`),
    /// before the exporting process frees the allocation.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Gpu, MemoryPool, PoolPointer};
    /// # fn received() -> (std::os::fd::OwnedFd, Vec<u8>) { unimplemented!() }
    /// let gpu = Gpu::new(0)?;
    /// let (fd, bytes) = received();
    /// let pool = MemoryPool::import_handle(&gpu, std::os::fd::AsFd::as_fd(&fd))?;
    /// let x = pool.import_pointer(&gpu, &PoolPointer::<u32>::from_bytes(&bytes)?)?;
    /// let values = x.download(&gpu)?;
    /// drop(x);
    /// gpu.synchronize()?; // freed here before the exporter frees it
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a pool of this process (only an imported pool imports
    /// pointers); [`Error::ForeignContext`] when `gpu` is of another device than the pool was
    /// imported for; [`Error::OutOfRange`] for an empty description, or one of more elements
    /// than the allocation it maps holds (the length is checked, as it came from another
    /// process); the driver's failures (`CUDA_ERROR_INVALID_VALUE` for a pointer of another
    /// pool).
    pub fn import_pointer<T: DeviceRepr>(
        &self,
        gpu: &Gpu,
        pointer: &PoolPointer<T>,
    ) -> Result<TrackedBuffer<T>, Error> {
        if self.origin() != Origin::Imported {
            return Err(self.unsupported(
                "importing a pointer into a pool of this process",
                "pointers are imported from a pool imported from their process",
            ));
        }
        self.same_device(gpu, "stream the imported buffer is used on")?;
        if pointer.is_empty() {
            return Err(Error::OutOfRange {
                what: "MemoryPool::import_pointer",
                problem: "an empty PoolPointer describes no allocation".to_owned(),
            });
        }
        gpu.context().bind_to_thread().call("cuCtxSetCurrent")?;
        let data = sys::CUmemPoolPtrExportData {
            reserved: pointer.raw,
        };
        // SAFETY: a live imported pool; the driver validates the data. The buffer frees the
        // address once, stream-ordered.
        let ptr = unsafe { driver::memory::pool_import_pointer(self.cu_pool(), data) }
            .call("cuMemPoolImportPointer")?;
        // SAFETY: an address just mapped, with its device's context current.
        let fits = unsafe {
            check_mapped_len::<T>(
                ptr,
                pointer.len,
                "MemoryPool::import_pointer",
                "PoolPointer",
            )
        };
        match fits {
            Ok(()) => Ok(TrackedBuffer::imported(gpu, ptr, pointer.len, self.clone())),
            Err(e) => {
                // Unmapped again: freed stream-ordered, as a buffer of no elements.
                drop(TrackedBuffer::<T>::imported(gpu, ptr, 0, self.clone()));
                Err(e)
            }
        }
    }

    /// Errors unless the pool was made shareable here.
    fn shared(&self, what: &'static str) -> Result<(), Error> {
        match self.origin() {
            Origin::Created { shareable: true } => Ok(()),
            Origin::Imported => Err(self.unsupported(
                what,
                "the pool was imported from another process; only its maker exports it",
            )),
            _ => Err(self.unsupported(
                what,
                "the pool was not made shareable (PoolOptions::shareable)",
            )),
        }
    }
}

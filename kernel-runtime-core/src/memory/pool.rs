//! [`MemoryPool`]: the driver's stream-ordered memory pools (`cuMemPool*`). Memory is taken
//! from a pool on a stream (`cuMemAllocFromPoolAsync`) and given back on a stream
//! (`cuMemFreeAsync`); what the pool keeps reserved serves the next allocations without
//! `cuMemAlloc`/`cuMemFree` and without synchronising the device.
//!
//! The default buffers ([`Gpu::zeros`], [`Gpu::upload`], `alloc`, `duplicate`) already come
//! from the device's *current* pool (`cuMemAllocAsync`), its default pool until
//! [`Gpu::set_memory_pool`] makes another current; so that pool's settings (the release
//! threshold above all) govern them. A pool's own buffers ([`MemoryPool::zeros`],
//! [`MemoryPool::upload`], [`MemoryPool::alloc`]) are the same
//! [`TrackedBuffer`](crate::TrackedBuffer)s, ordered across streams and freed stream-ordered
//! alike; each keeps its pool alive. Those methods are `tracked`'s, beside the buffer, so that
//! the buffers depend on the pool and never the other way. Sharing a pool with another
//! process is `pool_ipc`'s.

use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::CudaContext;
use cudarc::driver::sys::{self, CUdevice_attribute, CUmemPool_attribute};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};

/// A stream-ordered memory pool of one device: the device's default pool
/// ([`Gpu::default_memory_pool`]), the one its default buffers come from now
/// ([`Gpu::memory_pool`]), one made here ([`MemoryPool::new`]) or another process's
/// (`MemoryPool::import_handle`, Linux). A cheap handle (`Clone`, `Send`, `Sync`); a pool made
/// or imported here is destroyed once no handle and no buffer of it is left.
///
/// ```no_run
/// use cuda_kernel_runtime::{Gpu, MemoryPool, PoolOptions};
/// let gpu = Gpu::new(0)?;
/// // Keep up to 1 GiB reserved across synchronisations instead of releasing it.
/// let pool = MemoryPool::new(&gpu, PoolOptions::new().release_threshold(1 << 30))?;
/// let x = pool.upload(&gpu, &[1.0f32; 1024])?; // a TrackedBuffer, like gpu.upload's
/// drop(x); // freed on its stream; the memory stays in the pool
/// println!("{:?}", pool.usage()?);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct MemoryPool {
    inner: Arc<PoolInner>,
}

struct PoolInner {
    raw: sys::CUmemoryPool,
    /// The context of the device the pool's memory is used from (the primary context).
    ctx: Arc<CudaContext>,
    /// `NVIDIA H100 (device 0)`, for errors.
    device: String,
    origin: Origin,
    /// Whether the pool's handle was exported: the driver refuses to export a pointer of a
    /// pool before (`CUDA_ERROR_INVALID_VALUE`, seen with driver 580).
    handle_exported: std::sync::atomic::AtomicBool,
}

// SAFETY: a driver pool handle, usable from any thread.
unsafe impl Send for PoolInner {}
// SAFETY: as above; the handle is never changed.
unsafe impl Sync for PoolInner {}

/// Where a pool came from, which says what may be done with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The device's: its default pool, or one another library made current. Not ours to
    /// destroy.
    Device,
    /// Made here, destroyed when the last handle goes; `shareable` with POSIX descriptors.
    Created { shareable: bool },
    /// Another process's pool: it holds only that process's allocations, and cannot
    /// allocate (the driver's rule).
    Imported,
}

impl Drop for PoolInner {
    fn drop(&mut self) {
        if self.origin != Origin::Device {
            // SAFETY: made or imported here, destroyed once. Memory still allocated from it
            // keeps it until freed (the driver defers the release), and a destroyed current
            // pool hands the device back its default pool.
            let destroyed = unsafe { driver::memory::pool_destroy(self.raw) };
            self.ctx.record_err(destroyed);
        }
    }
}

/// How a new [`MemoryPool`] is made ([`MemoryPool::new`]): every setting off by default.
///
/// ```
/// use cuda_kernel_runtime::PoolOptions;
/// let options = PoolOptions::new()
///     .release_threshold(256 << 20)
///     .max_size(4 << 30)
///     .shareable(true);
/// assert_eq!(options.release_threshold_bytes(), Some(256 << 20));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolOptions {
    release_threshold: Option<u64>,
    max_size: Option<usize>,
    shareable: bool,
}

impl PoolOptions {
    /// No release threshold (the driver's 0: unused memory goes back at each
    /// synchronisation), no maximum size, not shareable.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::PoolOptions::new(), Default::default());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Keep up to `bytes` of unused memory reserved across synchronisations
    /// ([`MemoryPool::set_release_threshold`]); `u64::MAX` keeps everything until
    /// [`MemoryPool::trim_to`].
    ///
    /// ```
    /// let o = cuda_kernel_runtime::PoolOptions::new().release_threshold(u64::MAX);
    /// assert_eq!(o.release_threshold_bytes(), Some(u64::MAX));
    /// ```
    pub fn release_threshold(mut self, bytes: u64) -> Self {
        self.release_threshold = Some(bytes);
        self
    }

    /// The most the pool may reserve, in bytes (rounded up by the driver to its granularity;
    /// needs a CUDA 12.2 driver or later). Without it the pool may grow to the device's memory.
    ///
    /// ```
    /// let o = cuda_kernel_runtime::PoolOptions::new().max_size(1 << 30);
    /// assert_eq!(o.max_size_bytes(), Some(1 << 30));
    /// ```
    pub fn max_size(mut self, bytes: usize) -> Self {
        self.max_size = Some(bytes);
        self
    }

    /// Whether other processes may import the pool and its allocations (a POSIX file
    /// descriptor handle; Linux).
    ///
    /// ```
    /// assert!(cuda_kernel_runtime::PoolOptions::new().shareable(true).is_shareable());
    /// ```
    pub fn shareable(mut self, shareable: bool) -> Self {
        self.shareable = shareable;
        self
    }

    /// The release threshold set, if any.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::PoolOptions::new().release_threshold_bytes(), None);
    /// ```
    pub fn release_threshold_bytes(&self) -> Option<u64> {
        self.release_threshold
    }

    /// The maximum size set, if any.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::PoolOptions::new().max_size_bytes(), None);
    /// ```
    pub fn max_size_bytes(&self) -> Option<usize> {
        self.max_size
    }

    /// Whether the pool will be shareable.
    ///
    /// ```
    /// assert!(!cuda_kernel_runtime::PoolOptions::new().is_shareable());
    /// ```
    pub fn is_shareable(&self) -> bool {
        self.shareable
    }
}

/// A pool's memory, in bytes ([`MemoryPool::usage`]): what it holds from the device
/// (`reserved`) and what of that is allocated (`used`), now and at most since the pool was
/// made or [`MemoryPool::reset_high_water`] was called.
///
/// ```
/// let u = cuda_kernel_runtime::PoolUsage::default();
/// assert_eq!(u.used, 0);
/// assert!(u.used <= u.reserved && u.used_high <= u.reserved_high);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolUsage {
    /// Reserved from the device now (`CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT`).
    pub reserved: u64,
    /// The most reserved at once (`CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH`).
    pub reserved_high: u64,
    /// Allocated to the program now (`CU_MEMPOOL_ATTR_USED_MEM_CURRENT`).
    pub used: u64,
    /// The most allocated at once (`CU_MEMPOOL_ATTR_USED_MEM_HIGH`).
    pub used_high: u64,
}

/// Pools made current by [`Gpu::set_memory_pool`], one per device: kept alive while current,
/// so that [`Gpu::memory_pool`] hands out the same handle.
static CURRENT: Mutex<Vec<MemoryPool>> = Mutex::new(Vec::new());

impl MemoryPool {
    /// A new pool of `gpu`'s device memory (`cuMemPoolCreate`).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Gpu, MemoryPool, PoolOptions};
    /// let gpu = Gpu::new(0)?;
    /// let pool = MemoryPool::new(&gpu, PoolOptions::new().max_size(1 << 30))?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] on a device without memory pools, for a shareable pool where the
    /// device cannot export POSIX file descriptors, and for a maximum size under a driver
    /// older than CUDA 12.2; the driver's failures.
    pub fn new(gpu: &Gpu, options: PoolOptions) -> Result<MemoryPool, Error> {
        pools_supported(gpu, "creating a memory pool")?;
        if options.shareable && !shares_fds(gpu)? {
            return Err(gpu.unsupported(
                "a shareable memory pool",
                "pools cannot be exported as POSIX file descriptors \
                 (CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES)",
            ));
        }
        if options.max_size.is_some() {
            let (major, minor) = Gpu::driver_version()?;
            if (major, minor) < (12, 2) {
                return Err(gpu.unsupported(
                    "a memory pool's maximum size",
                    &format!("the driver supports CUDA {major}.{minor}; the size needs 12.2"),
                ));
            }
        }
        // SAFETY: every field of the properties is an integer, a pointer or an enumeration
        // with a zero value; the reserved bytes must be zero.
        let mut props: sys::CUmemPoolProps = unsafe { std::mem::zeroed() };
        props.allocType = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        props.handleTypes = if options.shareable {
            sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
        } else {
            sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE
        };
        props.location = device_location(gpu);
        props.maxSize = options.max_size.unwrap_or(0);
        gpu.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: valid properties, read during the call.
        let raw = unsafe { driver::memory::pool_create(&props) }.call("cuMemPoolCreate")?;
        let pool = MemoryPool::from_raw(
            raw,
            gpu,
            Origin::Created {
                shareable: options.shareable,
            },
        );
        if let Some(bytes) = options.release_threshold {
            pool.set_release_threshold(bytes)?;
        }
        Ok(pool)
    }

    /// A handle of `raw`, used from `gpu`'s device.
    pub(crate) fn from_raw(raw: sys::CUmemoryPool, gpu: &Gpu, origin: Origin) -> MemoryPool {
        MemoryPool {
            inner: Arc::new(PoolInner {
                raw,
                ctx: Arc::clone(gpu.context()),
                device: format!("{} (device {})", gpu.name(), gpu.ordinal()),
                origin,
                handle_exported: std::sync::atomic::AtomicBool::new(false),
            }),
        }
    }

    /// Whether the pool's handle was exported (`cuMemPoolExportToShareableHandle`).
    pub(crate) fn handle_exported(&self) -> bool {
        self.inner
            .handle_exported
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Records that the pool's handle was exported.
    pub(crate) fn mark_handle_exported(&self) {
        self.inner
            .handle_exported
            .store(true, std::sync::atomic::Ordering::Release);
    }

    /// Where the pool came from.
    pub(crate) fn origin(&self) -> Origin {
        self.inner.origin
    }

    /// [`Error::Unsupported`] naming the pool's device.
    pub(crate) fn unsupported(&self, what: &'static str, reason: &str) -> Error {
        Error::Unsupported {
            what,
            device: self.inner.device.clone(),
            reason: reason.to_owned(),
        }
    }

    /// Errors unless `gpu` is of the device the pool is used from.
    pub(crate) fn same_device(&self, gpu: &Gpu, user: &'static str) -> Result<(), Error> {
        if gpu.context().cu_device() == self.inner.ctx.cu_device() {
            Ok(())
        } else {
            Err(Error::ForeignContext {
                what: "the MemoryPool",
                user,
            })
        }
    }

    /// The driver's handle, for calls the runtime does not wrap.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let pool = gpu.default_memory_pool()?;
    /// assert!(!pool.cu_pool().is_null());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn cu_pool(&self) -> sys::CUmemoryPool {
        self.inner.raw
    }

    /// Whether other processes may import the pool (made with [`PoolOptions::shareable`]).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert!(!gpu.default_memory_pool()?.is_shareable());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn is_shareable(&self) -> bool {
        self.inner.origin == Origin::Created { shareable: true }
    }

    /// Keeps up to `bytes` of unused memory reserved when the program synchronises with the
    /// device (`CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`; 0, the driver's default, releases it all at
    /// each synchronisation; `u64::MAX` keeps everything until [`trim_to`](Self::trim_to)).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// // The default buffers stop giving their memory back at every synchronisation.
    /// gpu.default_memory_pool()?.set_release_threshold(u64::MAX)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn set_release_threshold(&self, bytes: u64) -> Result<(), Error> {
        self.set(
            CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            bytes,
        )
    }

    /// The release threshold, in bytes.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// println!("{}", gpu.default_memory_pool()?.release_threshold()?);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn release_threshold(&self) -> Result<u64, Error> {
        self.get(CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
    }

    /// Gives unused memory back to the device until the pool reserves at most `keep` bytes
    /// beyond what is allocated (`cuMemPoolTrimTo`); frees still queued on a stream count as
    /// allocated until they run.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let pool = gpu.default_memory_pool()?;
    /// gpu.synchronize()?;
    /// pool.trim_to(0)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn trim_to(&self, keep: usize) -> Result<(), Error> {
        self.inner.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: a live pool.
        unsafe { driver::memory::pool_trim_to(self.inner.raw, keep) }.call("cuMemPoolTrimTo")
    }

    /// What the pool reserves and what of it is allocated, now and at the high-water marks.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let u = gpu.default_memory_pool()?.usage()?;
    /// println!("{} of {} bytes in use, at most {}", u.used, u.reserved, u.used_high);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn usage(&self) -> Result<PoolUsage, Error> {
        Ok(PoolUsage {
            reserved: self.get(CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?,
            reserved_high: self.get(CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH)?,
            used: self.get(CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?,
            used_high: self.get(CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_HIGH)?,
        })
    }

    /// Resets both high-water marks of [`usage`](Self::usage) (to zero; they then follow the
    /// pool's use from now on).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let pool = gpu.default_memory_pool()?;
    /// pool.reset_high_water()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn reset_high_water(&self) -> Result<(), Error> {
        self.set(CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, 0)?;
        self.set(CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_HIGH, 0)
    }

    /// Lets `peer`'s device read and write the pool's memory (`cuMemPoolSetAccess`), for
    /// kernels there that take the pool's buffers; nothing when it already may (the pool's
    /// own device always may).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Gpu, MemoryPool, PoolOptions};
    /// let (a, b) = (Gpu::new(0)?, Gpu::new(1)?);
    /// let pool = MemoryPool::new(&a, PoolOptions::new())?;
    /// pool.grant_access(&b)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn grant_access(&self, peer: &Gpu) -> Result<(), Error> {
        let location = device_location(peer);
        // SAFETY: a live pool.
        let flags = unsafe { driver::memory::pool_get_access(self.inner.raw, location) }
            .call("cuMemPoolGetAccess")?;
        if flags == sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE {
            return Ok(());
        }
        let access = sys::CUmemAccessDesc {
            location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        // SAFETY: a live pool and one access descriptor.
        unsafe { driver::memory::pool_set_access(self.inner.raw, std::slice::from_ref(&access)) }
            .call("cuMemPoolSetAccess")
    }

    /// Errors unless the pool can allocate on `gpu`'s device.
    pub(crate) fn can_allocate(&self, gpu: &Gpu) -> Result<(), Error> {
        if self.inner.origin == Origin::Imported {
            return Err(self.unsupported(
                "allocating from another process's memory pool",
                "an imported pool holds only the exporting process's allocations",
            ));
        }
        self.same_device(gpu, "stream it allocates on")
    }

    fn get(&self, attribute: CUmemPool_attribute) -> Result<u64, Error> {
        let mut value = 0u64;
        // SAFETY: a live pool; every attribute read here is a 64-bit integer.
        unsafe {
            driver::memory::pool_get_attribute(self.inner.raw, attribute, (&raw mut value).cast())
        }
        .call("cuMemPoolGetAttribute")?;
        Ok(value)
    }

    fn set(&self, attribute: CUmemPool_attribute, mut value: u64) -> Result<(), Error> {
        // SAFETY: a live pool; every attribute set here is a 64-bit integer.
        unsafe {
            driver::memory::pool_set_attribute(self.inner.raw, attribute, (&raw mut value).cast())
        }
        .call("cuMemPoolSetAttribute")
    }
}

impl PartialEq for MemoryPool {
    /// The same driver pool.
    fn eq(&self, other: &Self) -> bool {
        self.inner.raw == other.inner.raw
    }
}

impl Eq for MemoryPool {}

impl std::fmt::Debug for MemoryPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryPool")
            .field("pool", &self.inner.raw)
            .field("device", &self.inner.device)
            .field("origin", &self.inner.origin)
            .finish()
    }
}

/// The location of `gpu`'s device memory.
fn device_location(gpu: &Gpu) -> sys::CUmemLocation {
    sys::CUmemLocation {
        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
        id: gpu.context().cu_device(),
    }
}

/// Errors unless `gpu`'s device has stream-ordered memory pools.
fn pools_supported(gpu: &Gpu, what: &'static str) -> Result<(), Error> {
    if gpu.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)? != 0 {
        Ok(())
    } else {
        Err(gpu.unsupported(
            what,
            "the device has no stream-ordered memory pools \
             (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED is 0)",
        ))
    }
}

/// Whether `gpu`'s device exports pools as POSIX file descriptors.
fn shares_fds(gpu: &Gpu) -> Result<bool, Error> {
    let types =
        gpu.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES)?;
    let fd = sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR.0;
    Ok(types as u32 & fd != 0)
}

impl Gpu {
    /// The device's default memory pool (`cuDeviceGetDefaultMemPool`), which its default
    /// buffers come from unless another pool was made current.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let pool = gpu.default_memory_pool()?;
    /// pool.set_release_threshold(u64::MAX)?; // the default buffers keep their memory
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] on a device without memory pools.
    pub fn default_memory_pool(&self) -> Result<MemoryPool, Error> {
        pools_supported(self, "the default memory pool")?;
        // SAFETY: the context's device.
        let raw = unsafe { driver::device::get_default_mem_pool(self.context().cu_device()) }
            .call("cuDeviceGetDefaultMemPool")?;
        Ok(MemoryPool::from_raw(raw, self, Origin::Device))
    }

    /// The pool the device's default buffers ([`Gpu::zeros`], [`Gpu::upload`], ...) come from
    /// now (`cuDeviceGetMemPool`): the default pool, or the one [`Gpu::set_memory_pool`] made
    /// current.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert_eq!(gpu.memory_pool()?, gpu.default_memory_pool()?);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] on a device without memory pools.
    pub fn memory_pool(&self) -> Result<MemoryPool, Error> {
        pools_supported(self, "the current memory pool")?;
        let device = self.context().cu_device();
        // SAFETY: the context's device.
        let raw = unsafe { driver::device::get_mem_pool(device) }.call("cuDeviceGetMemPool")?;
        let current = CURRENT.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(current
            .iter()
            .find(|p| p.inner.raw == raw)
            .cloned()
            .unwrap_or_else(|| MemoryPool::from_raw(raw, self, Origin::Device)))
    }

    /// Makes `pool` the device's current pool (`cuDeviceSetMemPool`): the default buffers
    /// allocated from now on come from it (buffers allocated before are freed into their own
    /// pool). The device keeps the pool alive until another is made current.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Gpu, MemoryPool, PoolOptions};
    /// let gpu = Gpu::new(0)?;
    /// let pool = MemoryPool::new(&gpu, PoolOptions::new().release_threshold(u64::MAX))?;
    /// gpu.set_memory_pool(&pool)?;
    /// let x = gpu.zeros::<f32>(1024)?; // from `pool`
    /// gpu.set_memory_pool(&gpu.default_memory_pool()?)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ForeignContext`] for another device's pool; [`Error::Unsupported`] for another
    /// process's (it cannot allocate); the driver's failures.
    pub fn set_memory_pool(&self, pool: &MemoryPool) -> Result<(), Error> {
        pool.can_allocate(self)?;
        let device = self.context().cu_device();
        // Held across the call, so that the record and the device agree.
        let mut current = CURRENT.lock().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: the context's device and a live pool of it.
        unsafe { driver::device::set_mem_pool(device, pool.inner.raw) }
            .call("cuDeviceSetMemPool")?;
        current.retain(|p| p.inner.ctx.cu_device() != device);
        if pool.inner.origin != Origin::Device {
            current.push(pool.clone());
        }
        Ok(())
    }
}

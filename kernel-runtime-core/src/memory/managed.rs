//! Managed (unified) memory: one allocation the host and every device reach through the same
//! address, migrated page by page on demand, or ahead of time with [`Gpu::prefetch`].
//!
//! Buffers are cudarc's [`UnifiedSlice`]; stubs take `&UnifiedSlice<T>` for `const T*` and
//! `&mut UnifiedSlice<T>` for `T*` (and cudarc's unified views), like device buffers. Its host
//! accessors (`as_slice`, `as_mut_slice`) wait for the work queued on it: every launch, zeroing
//! and prefetch records the buffer's event, whatever the stream mode. (Copies into it queued
//! through cudarc, such as [`Gpu::upload_into`], record it only in multi-stream mode: call
//! [`Gpu::synchronize`] before reading it on the host after one.)
//!
//! When to use it: data the host and the device both touch in turn, data larger than the
//! device's memory (pages move as they are used), or code ported from `cudaMallocManaged`.
//! What it costs: a kernel that touches pages resident on the host takes page faults and
//! migrates them at fault time; prefetching to the device first gives device-memory speed
//! (figures in the project's docs/BENCHMARKS.md, "Managed memory").

use cudarc::driver::sys::{self, CUmem_advise as A, CUmemLocationType as L};
use cudarc::driver::{DevicePtr, DeviceRepr, UnifiedSlice, ValidAsZeroBits};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::memory::buffers::byte_len;
use crate::memory::prepared::split_with;

/// Where managed pages should be: on a [`Gpu`]'s device or on the host.
///
/// ```
/// use cuda_kernel_runtime::Location;
/// assert_ne!(Location::Device, Location::Host);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// The device of the [`Gpu`] the call is made on.
    Device,
    /// Host memory.
    Host,
}

/// Hints for the driver's page migration ([`Gpu::advise`], `cuMemAdvise`).
///
/// ```
/// use cuda_kernel_runtime::{Advice, Location};
/// let hints = [Advice::ReadMostly, Advice::PreferredLocation(Location::Device)];
/// assert_eq!(hints.len(), 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    /// Mostly read: devices that read it keep read-only copies instead of migrating it.
    ReadMostly,
    /// Undoes [`Advice::ReadMostly`].
    NotReadMostly,
    /// Where the pages should live; others map them instead of migrating them when possible.
    PreferredLocation(Location),
    /// Undoes [`Advice::PreferredLocation`].
    NoPreferredLocation,
    /// The location's processor will access the data: keep it mapped there.
    AccessedBy(Location),
    /// Undoes [`Advice::AccessedBy`].
    NotAccessedBy(Location),
}

impl Gpu {
    /// A zeroed managed buffer of `len` elements, reachable from the host and from every device
    /// (attached globally).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut x = gpu.managed::<f32>(1 << 20)?;
    /// x.as_mut_slice()?.fill(1.0); // written by the host, read by kernels in place
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] on a device without managed memory; a driver error otherwise.
    pub fn managed<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<UnifiedSlice<T>, Error> {
        byte_len::<T>("managed", len)?;
        if self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY)? == 0 {
            return Err(
                self.unsupported("managed memory", "the device attribute MANAGED_MEMORY is 0")
            );
        }
        self.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: the buffer is zeroed below before anything reads it; `T` is valid as zeros.
        let buf =
            unsafe { self.context().alloc_unified::<T>(len, true) }.call("cuMemAllocManaged")?;
        // Zeroed through `on_stream`, which records the buffer's event (cudarc's memset would
        // record it only in multi-stream mode, and `as_mut_slice` would not wait for it).
        let bytes = buf.num_bytes();
        self.on_stream(&buf, "cuMemsetD8Async", |ptr, stream| {
            // SAFETY: the whole allocation, queued on the stream.
            unsafe { driver::memory::memset_d8_async(ptr, 0, bytes, stream) }
        })?;
        Ok(buf)
    }

    /// A managed buffer holding a copy of `data`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = gpu.managed_from(&[1.0f32, 2.0, 3.0])?;
    /// assert_eq!(x.as_slice()?, &[1.0, 2.0, 3.0]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn managed_from<T: DeviceRepr + ValidAsZeroBits + Copy>(
        &self,
        data: &[T],
    ) -> Result<UnifiedSlice<T>, Error> {
        let mut buf = self.managed::<T>(data.len())?;
        buf.as_mut_slice()
            .call("cuEventSynchronize")?
            .copy_from_slice(data);
        Ok(buf)
    }

    /// Queues a migration of `buf`'s pages to `to` on this handle's stream
    /// (`cuMemPrefetchAsync`): a kernel queued after it finds them resident.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::Location;
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = gpu.managed::<f32>(1 << 20)?;
    /// gpu.prefetch(&x, Location::Device)?; // before the kernels that read it
    /// gpu.prefetch(&x, Location::Host)?; // before the host reads the results
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] for [`Location::Device`] on a device without concurrent managed
    /// access (there the driver migrates everything at each launch anyway).
    pub fn prefetch<T>(&self, buf: &UnifiedSlice<T>, to: Location) -> Result<(), Error> {
        if to == Location::Device && !self.concurrent_managed_access()? {
            return Err(self.unsupported(
                "prefetching managed memory to the device",
                "the device attribute CONCURRENT_MANAGED_ACCESS is 0",
            ));
        }
        let (bytes, location) = (buf.num_bytes(), self.location(to));
        self.on_stream(buf, "cuMemPrefetchAsync", |ptr, stream| {
            // SAFETY: `ptr` and the byte count are the whole managed allocation, alive while
            // `buf` is borrowed.
            unsafe { driver::memory::mem_prefetch_async(ptr, bytes, location, stream) }
        })
    }

    /// Queues `op` on this handle's stream after the buffer's last use, and records the
    /// buffer's event after it (cudarc records it only in multi-stream mode; the host
    /// accessors wait on it in every mode).
    fn on_stream<T>(
        &self,
        buf: &UnifiedSlice<T>,
        call: &'static str,
        op: impl FnOnce(sys::CUdeviceptr, sys::CUstream) -> Result<(), cudarc::driver::DriverError>,
    ) -> Result<(), Error> {
        let stream = self.stream();
        buf.check_device_access(stream)
            .call("managed memory access")?;
        let (ptr, guard) = buf.device_ptr(stream);
        // SAFETY: the event lives in `buf`, borrowed for this call.
        let prepared = unsafe { split_with(ptr, guard, true) };
        op(ptr, stream.cu_stream()).call(call)?;
        prepared.finish(stream)
    }

    /// Gives the driver a hint about `buf` ([`Advice`], `cuMemAdvise`).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Advice, Location};
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let lut = gpu.managed_from(&[0.5f32; 256])?;
    /// gpu.advise(&lut, Advice::ReadMostly)?;
    /// gpu.advise(&lut, Advice::PreferredLocation(Location::Device))?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn advise<T>(&self, buf: &UnifiedSlice<T>, advice: Advice) -> Result<(), Error> {
        let here = self.location(Location::Device);
        let (code, location) = match advice {
            Advice::ReadMostly => (A::CU_MEM_ADVISE_SET_READ_MOSTLY, here),
            Advice::NotReadMostly => (A::CU_MEM_ADVISE_UNSET_READ_MOSTLY, here),
            Advice::PreferredLocation(at) => {
                (A::CU_MEM_ADVISE_SET_PREFERRED_LOCATION, self.location(at))
            }
            Advice::NoPreferredLocation => (A::CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, here),
            Advice::AccessedBy(at) => (A::CU_MEM_ADVISE_SET_ACCESSED_BY, self.location(at)),
            Advice::NotAccessedBy(at) => (A::CU_MEM_ADVISE_UNSET_ACCESSED_BY, self.location(at)),
        };
        let (ptr, record) = buf.device_ptr(self.stream());
        // SAFETY: the range is the whole managed allocation, alive while `buf` is borrowed.
        let done = unsafe { driver::memory::mem_advise(ptr, buf.num_bytes(), code, location) };
        drop(record);
        done.call("cuMemAdvise")
    }

    /// Whether the device can touch managed memory while the host does (pages migrate on
    /// demand, prefetching to the device is possible).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// println!("on-demand migration: {}", gpu.concurrent_managed_access()?);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn concurrent_managed_access(&self) -> Result<bool, Error> {
        Ok(self
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS)?
            != 0)
    }

    fn location(&self, at: Location) -> sys::CUmemLocation {
        match at {
            Location::Device => sys::CUmemLocation {
                type_: L::CU_MEM_LOCATION_TYPE_DEVICE,
                id: self.ordinal() as i32,
            },
            Location::Host => sys::CUmemLocation {
                type_: L::CU_MEM_LOCATION_TYPE_HOST,
                id: 0,
            },
        }
    }

    /// [`Error::Unsupported`] naming this device.
    pub(crate) fn unsupported(&self, what: &'static str, reason: &str) -> Error {
        Error::Unsupported {
            what,
            device: format!("{} (device {})", self.name(), self.ordinal()),
            reason: reason.to_owned(),
        }
    }
}

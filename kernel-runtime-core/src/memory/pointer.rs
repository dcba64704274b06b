//! What the driver knows of an address: [`PointerAttributes`].

use cudarc::driver::sys::{CUmemorytype, CUpointer_attribute as A};
use std::ffi::c_void;

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};

/// Where memory lives.
///
/// ```
/// assert_ne!(cuda_kernel_runtime::MemoryType::Device, cuda_kernel_runtime::MemoryType::Host);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryType {
    /// Device memory.
    Device,
    /// Page-locked host memory known to the driver.
    Host,
    /// A CUDA array.
    Array,
    /// Unified (managed) memory.
    Unified,
}

/// The driver's attributes of an address ([`Gpu::pointer_attributes`]).
///
/// ```
/// let a = cuda_kernel_runtime::PointerAttributes { memory_type: cuda_kernel_runtime::MemoryType::Device,
///     device: 0, range_start: 0x1000, range_size: 256, managed: false };
/// assert!(a.range_start + a.range_size as u64 > 0x1000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointerAttributes {
    /// Where the memory lives.
    pub memory_type: MemoryType,
    /// The ordinal of the device it belongs to.
    pub device: usize,
    /// The start of the allocation the address lies in.
    pub range_start: u64,
    /// That allocation's size in bytes.
    pub range_size: usize,
    /// Whether it is managed (unified) memory.
    pub managed: bool,
}

impl Gpu {
    /// What the driver knows of `address` (a device address, e.g.
    /// `RawDevicePtr::of(&buf).addr()`).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Gpu, MemoryType, RawDevicePtr};
    /// let gpu = Gpu::new(0)?;
    /// let buf = gpu.zeros::<f32>(1024)?;
    /// let at = gpu.pointer_attributes(RawDevicePtr::of(&buf).addr())?;
    /// assert_eq!((at.memory_type, at.range_size), (MemoryType::Device, 4096));
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` (as [`Error::Driver`]) for an address the driver does not
    /// know.
    pub fn pointer_attributes(&self, address: u64) -> Result<PointerAttributes, Error> {
        self.inner().ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let mut memory_type: u32 = 0;
        let mut device: i32 = 0;
        let mut start: u64 = 0;
        let mut size: usize = 0;
        let mut managed: u32 = 0;
        let mut attrs = [
            A::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            A::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
            A::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
            A::CU_POINTER_ATTRIBUTE_RANGE_SIZE,
            A::CU_POINTER_ATTRIBUTE_IS_MANAGED,
        ];
        let mut data: [*mut c_void; 5] = [
            (&raw mut memory_type).cast(),
            (&raw mut device).cast(),
            (&raw mut start).cast(),
            (&raw mut size).cast(),
            (&raw mut managed).cast(),
        ];
        // SAFETY: each data pointer addresses a value of the type its attribute writes
        // (u32, int, CUdeviceptr, size_t, bool as a 32-bit value), alive for the call.
        unsafe { driver::memory::pointer_get_attributes(&mut attrs, &mut data, address) }
            .call("cuPointerGetAttributes")?;
        let memory_type = match memory_type {
            t if t == CUmemorytype::CU_MEMORYTYPE_HOST as u32 => MemoryType::Host,
            t if t == CUmemorytype::CU_MEMORYTYPE_ARRAY as u32 => MemoryType::Array,
            t if t == CUmemorytype::CU_MEMORYTYPE_UNIFIED as u32 => MemoryType::Unified,
            _ => MemoryType::Device,
        };
        Ok(PointerAttributes {
            memory_type,
            device: usize::try_from(device).unwrap_or(0),
            range_start: start,
            range_size: size,
            managed: managed != 0,
        })
    }
}

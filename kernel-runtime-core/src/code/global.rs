//! Typed access to module globals (`__constant__` and `__device__` variables).
//!
//! Reads and writes go to the module's stream, so they are ordered with its launches; they take
//! no part in cudarc's cross-stream events.

use std::marker::PhantomData;
use std::mem::MaybeUninit;

use cudarc::driver::DeviceRepr;
use cudarc::driver::sys::CUdeviceptr;

use crate::code::module::{LoadedModule, RawModule};
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::launch::args::values::RawDevicePtr;

/// A module global of type `T` whose size was checked against the image.
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// # let module = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?;
/// let coeffs = module.global::<[f32; 4]>("coeffs")?;
/// coeffs.write(&[1.0, 2.0, 3.0, 4.0])?;
/// assert_eq!(coeffs.read()?, [1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct Global<T> {
    module: RawModule,
    addr: CUdeviceptr,
    _type: PhantomData<fn() -> T>,
}

impl<T: DeviceRepr> Global<T> {
    /// Queues a write of `value` on the module's stream (the value is copied before return).
    pub fn write(&self, value: &T) -> Result<(), Error> {
        let stream = self.module.gpu().stream();
        self.module
            .inner
            .ctx
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        // SAFETY: `addr` addresses `size_of::<T>()` bytes of a live module (checked at lookup);
        // a pageable source is staged by the driver before the call returns.
        unsafe {
            driver::memory::memcpy_htod_async(
                self.addr,
                std::slice::from_ref(value),
                stream.cu_stream(),
            )
        }
        .call("cuMemcpyHtoDAsync")
    }

    /// Reads the value after the work queued on the module's stream.
    ///
    /// `T` should be valid for any bytes the device may have stored (plain numbers and arrays of
    /// them; not `bool` written as something other than 0 or 1).
    pub fn read(&self) -> Result<T, Error> {
        let stream = self.module.gpu().stream();
        self.module
            .inner
            .ctx
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        let mut value = MaybeUninit::<T>::uninit();
        // SAFETY: `value` has room for one `T`, which the copy fills completely, and it stays in
        // place until the stream is synchronized below.
        unsafe {
            let dst = std::slice::from_raw_parts_mut(
                value.as_mut_ptr().cast::<u8>(),
                std::mem::size_of::<T>(),
            );
            driver::memory::memcpy_dtoh_async(dst, self.addr, stream.cu_stream())
                .call("cuMemcpyDtoHAsync")?;
        }
        stream.synchronize().call("cuStreamSynchronize")?;
        // SAFETY: every byte was written by the copy above.
        Ok(unsafe { value.assume_init() })
    }

    /// The global's device address (for kernels that take it as a pointer).
    pub fn device_ptr(&self) -> RawDevicePtr {
        RawDevicePtr::from_addr(self.addr)
    }
}

impl RawModule {
    /// A module global by symbol name, its size checked against `T`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let module = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?;
    /// let scale = module.global::<f32>("scale")?;
    /// scale.write(&0.5)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn global<T: DeviceRepr>(&self, symbol: &str) -> Result<Global<T>, Error> {
        let (addr, size) = self.inner.global(symbol)?;
        if size != std::mem::size_of::<T>() {
            return Err(size_error::<T>(self, symbol, size, "the loaded image has"));
        }
        Ok(Global {
            module: self.clone(),
            addr,
            _type: PhantomData,
        })
    }
}

fn size_error<T>(module: &RawModule, global: &str, size: usize, whose: &str) -> Error {
    Error::Global {
        module: module.name().to_owned(),
        global: global.to_owned(),
        problem: format!(
            "{whose} {size} byte(s), the Rust type `{}` has {}",
            std::any::type_name::<T>(),
            std::mem::size_of::<T>()
        ),
    }
}

/// Global number `index` of an embedded module, its size checked against the build's metadata
/// and the loaded image.
///
/// ```no_run
/// # use cuda_kernel_runtime::{__private::{global, load_module}, spec::ModuleSpec};
/// # static SPEC: ModuleSpec = ModuleSpec { name: "m", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[], units: &[], source: None, tuned: &[] };
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let m = load_module(&gpu, &SPEC)?;
/// let g = global::<u32>(&m, 0)?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub fn global<T: DeviceRepr>(module: &LoadedModule, index: usize) -> Result<Global<T>, Error> {
    let m = module.module();
    let spec = module
        .spec()
        .globals
        .get(index)
        .ok_or_else(|| Error::BadIndex {
            module: m.name().to_owned(),
            what: "global",
            index,
        })?;
    if spec.size != std::mem::size_of::<T>() {
        return Err(size_error::<T>(
            m,
            spec.name,
            spec.size,
            "the CUDA declaration has",
        ));
    }
    m.global::<T>(spec.symbol)
}

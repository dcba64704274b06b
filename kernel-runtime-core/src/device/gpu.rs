//! [`Gpu`]: one device's context plus the stream work goes to.

use std::any::Any;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use cudarc::driver::{CudaContext, CudaStream, sys};

use crate::device::init::{driver_version, ensure_driver};
use crate::device::limits::DeviceLimits;
use crate::error::{DriverResultExt, Error};

/// A CUDA device: its primary context, its limits, the modules loaded into it, and the stream
/// that launches and copies made through this handle go to.
///
/// `Gpu` is a cheap handle (`Clone`, `Send`, `Sync`): every `Gpu::new` for the same ordinal in
/// one process shares the context and the module cache. Its stream is the device's default
/// stream until [`Gpu::with_stream`] picks another.
///
/// ```no_run
/// use cuda_kernel_runtime::Gpu;
/// let gpu = Gpu::new(0)?;
/// println!("{} ({}), {} MiB", gpu.name(), gpu.arch(), gpu.total_memory()? >> 20);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct Gpu {
    inner: Arc<GpuInner>,
    stream: Arc<CudaStream>,
}

/// What every handle of one device shares.
pub(crate) struct GpuInner {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) default_stream: Arc<CudaStream>,
    pub(crate) limits: DeviceLimits,
    pub(crate) name: String,
    /// The modules loaded into the context: the per-context cache of `code::module::cache`,
    /// made there on first use. Its type is not named here, so that the device does not
    /// depend on the code loaded into it; the bounds keep `Gpu`'s auto traits what the cache
    /// gives it.
    pub(crate) modules: OnceLock<ModuleSlot>,
}

/// What [`GpuInner::modules`] holds.
pub(crate) type ModuleSlot = Box<dyn Any + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// Open devices, by ordinal; weak so that dropping every handle releases the context.
static OPEN: Mutex<Vec<(usize, Weak<GpuInner>)>> = Mutex::new(Vec::new());

impl Gpu {
    /// Opens device `ordinal`.
    ///
    /// Returns [`Error::NoDriver`] when no usable driver is installed and [`Error::NoDevice`]
    /// when there is no such device; never panics.
    ///
    /// ```no_run
    /// match cuda_kernel_runtime::Gpu::new(0) {
    ///     Ok(gpu) => println!("running on {}", gpu.name()),
    ///     Err(e) => eprintln!("no GPU: {e}"),
    /// }
    /// ```
    pub fn new(ordinal: usize) -> Result<Gpu, Error> {
        let count = ensure_driver().map_err(|e| match e {
            Error::NoDevice { count, .. } => Error::NoDevice { ordinal, count },
            e => e,
        })?;
        if ordinal >= count {
            return Err(Error::NoDevice { ordinal, count });
        }
        let mut open = OPEN.lock().unwrap_or_else(|p| p.into_inner());
        open.retain(|(_, w)| w.strong_count() > 0);
        if let Some(inner) = open
            .iter()
            .find(|(o, _)| *o == ordinal)
            .and_then(|(_, w)| w.upgrade())
        {
            let stream = inner.default_stream.clone();
            return Ok(Gpu { inner, stream });
        }
        let ctx = CudaContext::new(ordinal).call("cuDevicePrimaryCtxRetain")?;
        let limits = DeviceLimits::query(&ctx)?;
        let name = ctx.name().call("cuDeviceGetName")?;
        let default_stream = ctx.default_stream();
        let inner = Arc::new(GpuInner {
            ctx,
            default_stream: default_stream.clone(),
            limits,
            name,
            modules: OnceLock::new(),
        });
        open.push((ordinal, Arc::downgrade(&inner)));
        Ok(Gpu {
            inner,
            stream: default_stream,
        })
    }

    /// Number of CUDA devices; `Err(NoDriver)` without a driver.
    ///
    /// ```no_run
    /// let n = cuda_kernel_runtime::Gpu::count()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn count() -> Result<usize, Error> {
        match ensure_driver() {
            Err(Error::NoDevice { .. }) => Ok(0),
            other => other,
        }
    }

    /// The CUDA version the installed driver supports, e.g. `(13, 0)`.
    ///
    /// ```no_run
    /// let (major, minor) = cuda_kernel_runtime::Gpu::driver_version()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn driver_version() -> Result<(u32, u32), Error> {
        driver_version()
    }

    /// A handle to the same device whose launches and copies go to `stream`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let side = gpu.with_stream(&gpu.new_stream()?);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn with_stream(&self, stream: &Arc<CudaStream>) -> Gpu {
        Gpu {
            inner: self.inner.clone(),
            stream: stream.clone(),
        }
    }

    /// Creates a new non-blocking stream on this device.
    ///
    /// The first one switches the context to cudarc's multi-stream mode, where every buffer
    /// records events so that work on different streams is ordered; launches cost a little more.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let s = gpu.new_stream()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn new_stream(&self) -> Result<Arc<CudaStream>, Error> {
        self.inner.ctx.new_stream().call("cuStreamCreate")
    }

    /// Creates a new non-blocking stream whose work the device schedules with `priority`
    /// (lower numbers are higher priorities, within
    /// [`DeviceLimits::stream_priorities`](crate::DeviceLimits::stream_priorities)); a priority
    /// outside the range is an error naming it, not clamped.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let (_, greatest) = gpu.limits().stream_priorities;
    /// let urgent = gpu.new_stream_with_priority(greatest)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn new_stream_with_priority(&self, priority: i32) -> Result<Arc<CudaStream>, Error> {
        let (least, greatest) = self.inner.limits.stream_priorities;
        if priority < greatest || priority > least {
            return Err(Error::StreamPriority {
                requested: priority,
                greatest,
                least,
            });
        }
        self.inner
            .ctx
            .new_stream_with_priority(priority)
            .call("cuStreamCreateWithPriority")
    }

    /// The stream this handle's work goes to.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let stream = gpu.stream().clone();
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The cudarc context (the device's primary context).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let ctx = gpu.context();
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.inner.ctx
    }

    /// Device ordinal.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert_eq!(gpu.ordinal(), 0);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn ordinal(&self) -> usize {
        self.inner.ctx.ordinal()
    }

    /// Device name, e.g. `NVIDIA H100 80GB HBM3`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// println!("{}", gpu.name());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Compute capability `(major, minor)`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let (major, _) = gpu.compute_capability();
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn compute_capability(&self) -> (u32, u32) {
        self.inner.limits.compute_capability
    }

    /// SASS architecture name, e.g. `sm_90`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert!(gpu.arch().starts_with("sm_"));
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn arch(&self) -> String {
        self.inner.limits.arch()
    }

    /// The limits launch validation checks against.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert!(gpu.limits().max_threads_per_block >= 1024);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn limits(&self) -> &DeviceLimits {
        &self.inner.limits
    }

    /// Any device attribute.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::cudarc::driver::sys::CUdevice_attribute as A;
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let l2 = gpu.attribute(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn attribute(&self, attribute: sys::CUdevice_attribute) -> Result<i32, Error> {
        self.inner
            .ctx
            .attribute(attribute)
            .call("cuDeviceGetAttribute")
    }

    /// Total device memory in bytes.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let bytes = gpu.total_memory()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn total_memory(&self) -> Result<usize, Error> {
        self.inner.ctx.total_mem().call("cuDeviceTotalMem")
    }

    /// Free device memory in bytes, as the driver sees it now.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let free = gpu.free_memory()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn free_memory(&self) -> Result<usize, Error> {
        self.inner
            .ctx
            .mem_get_info()
            .call("cuMemGetInfo")
            .map(|(free, _)| free)
    }

    /// Waits for the work on this handle's stream; a kernel fault surfaces here as
    /// [`Error::KernelFault`], a failed device `assert` as [`Error::DeviceAssert`].
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// gpu.synchronize()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<(), Error> {
        self.stream.synchronize().call("cuStreamSynchronize")?;
        self.inner.ctx.check_err().call("deferred driver call")
    }

    /// Waits for all work on the device.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// gpu.synchronize_device()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn synchronize_device(&self) -> Result<(), Error> {
        self.inner.ctx.synchronize().call("cuCtxSynchronize")
    }

    /// The shared per-device state.
    pub(crate) fn inner(&self) -> &Arc<GpuInner> {
        &self.inner
    }
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("ordinal", &self.inner.ctx.ordinal())
            .field("name", &self.inner.name)
            .field("arch", &self.inner.limits.arch())
            .finish()
    }
}

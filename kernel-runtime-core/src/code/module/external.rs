//! [`RawModule`]: modules loaded from bytes or files, and their kernels by name.

use std::path::Path;
use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::{Kernel, KernelRequest, ModuleInner, Provenance, load};
use crate::code::object_code::ObjectCode;
use crate::device::gpu::Gpu;
use crate::error::Error;

/// A module loaded into a device, with the stream its launches go to. Cheap to clone.
///
/// ```no_run
/// use cuda_kernel_runtime::{Gpu, RawModule, Launch};
/// let gpu = Gpu::new(0)?;
/// let module = RawModule::load_file(&gpu, "kernels.fatbin")?;
/// let scale = module.kernel("scale")?;
/// let mut x = gpu.upload(&[1.0f32, 2.0, 3.0])?;
/// // SAFETY: `scale(float* x, float a, int n)` is what the module declares.
/// unsafe { scale.launch(&Launch::for_num_elems(3), (&mut x, 2.0f32, 3i32))? };
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct RawModule {
    pub(crate) inner: Arc<ModuleInner>,
    pub(super) gpu: Gpu,
}

impl RawModule {
    pub(crate) fn from_parts(inner: Arc<ModuleInner>, gpu: Gpu) -> Self {
        RawModule { inner, gpu }
    }

    /// Loads a fatbin, cubin or PTX image (PTX need not be NUL-terminated).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n";
    /// let m = cuda_kernel_runtime::RawModule::load_bytes(&gpu, ptx.as_bytes())?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn load_bytes(gpu: &Gpu, image: &[u8]) -> Result<RawModule, Error> {
        Self::load_named(gpu, image, "<bytes>")
    }

    /// Loads a fatbin, cubin or PTX file.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let m = cuda_kernel_runtime::RawModule::load_file(&gpu, "kernels.cubin")?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn load_file(gpu: &Gpu, path: impl AsRef<Path>) -> Result<RawModule, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::load_named(gpu, &bytes, &path.display().to_string())
    }

    fn load_named(gpu: &Gpu, image: &[u8], name: &str) -> Result<RawModule, Error> {
        Self::load_with_symbols(gpu, image, name, Vec::new())
    }

    /// Loads `image` as `name`; `symbols` maps name expressions to compiled symbols.
    pub(crate) fn load_with_symbols(
        gpu: &Gpu,
        image: &[u8],
        name: &str,
        symbols: Vec<(String, String)>,
    ) -> Result<RawModule, Error> {
        let from = Provenance {
            module: name,
            archs: None,
            toolkit: None,
        };
        let mut inner = load(gpu, &[image], &[], &from)?;
        inner.symbols = symbols;
        Ok(RawModule {
            inner: Arc::new(inner),
            gpu: gpu.clone(),
        })
    }

    /// The module's name (file path for files).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let m = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?;
    /// assert_eq!(m.name(), "k.cubin");
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The device (and stream) this handle launches on.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let m = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?;
    /// m.gpu().synchronize()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The same module, launching on `stream`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let m = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?;
    /// let side = m.with_stream(&gpu.new_stream()?);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn with_stream(&self, stream: &Arc<CudaStream>) -> RawModule {
        RawModule {
            inner: self.inner.clone(),
            gpu: self.gpu.with_stream(stream),
        }
    }

    /// A kernel by name: a declared kernel of an embedded module, or a symbol looked up now.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let m = cuda_kernel_runtime::RawModule::load_file(&gpu, "k.cubin")?;
    /// let k = m.kernel("saxpy")?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn kernel(&self, name: &str) -> Result<Kernel, Error> {
        if let Some(slot) = self.inner.kernels.iter().find(|k| k.name() == name) {
            return Ok(Kernel {
                module: self.clone(),
                info: slot.get(&self.inner)?.clone(),
            });
        }
        // A name expression given with `ObjectCode::with_symbol` stands for its symbol.
        let symbol = self
            .inner
            .symbols
            .iter()
            .find(|(expr, _)| expr == name)
            .map_or(name, |(_, s)| s.as_str());
        let request = KernelRequest {
            name,
            symbol,
            launch_bounds: 0,
            cluster_dims: None,
            available: None,
            unit: None,
        };
        let info = Arc::new(self.inner.resolve(&request)?);
        Ok(Kernel {
            module: self.clone(),
            info,
        })
    }

    /// Whether the image loaded for this GPU holds kernel `name`: a declared kernel compiled
    /// for this GPU's target, or any symbol of the image.
    ///
    /// A kernel declared inside `#if __CUDA_ARCH__ >= 900` is compiled into the sm_90
    /// image only: on an sm_80 GPU this is `false`, and calling it returns
    /// [`Error::KernelNotInImage`].
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let m = cuda_kernel_runtime::RawModule::load_file(&gpu, "kernels.fatbin")?;
    /// if m.has_kernel("affine_bf16") {
    ///     // launch the bf16 path
    /// }
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn has_kernel(&self, name: &str) -> bool {
        match self.inner.kernels.iter().find(|k| k.name() == name) {
            Some(slot) => matches!(slot, super::Slot::Ready(_)),
            None => self.kernel(name).is_ok(),
        }
    }

    /// A declared kernel by index.
    pub(crate) fn kernel_at(&self, index: usize) -> Result<Kernel, Error> {
        let slot = self
            .inner
            .kernels
            .get(index)
            .ok_or_else(|| Error::BadIndex {
                module: self.inner.name.clone(),
                what: "kernel",
                index,
            })?;
        Ok(Kernel {
            module: self.clone(),
            info: slot.get(&self.inner)?.clone(),
        })
    }
}

// Loading code given at run time is this file's concern; `ObjectCode` itself names no module.
impl ObjectCode {
    /// Loads the code into `gpu`'s context as a [`RawModule`] whose [`RawModule::kernel`] also
    /// accepts the name expressions of [`with_symbol`](Self::with_symbol). Only the kinds
    /// the driver loads ([`CodeKind::is_loadable`](crate::CodeKind::is_loadable): a fatbin, PTX, a cubin that is not
    /// relocatable); the others return [`Error::NeedsLinking`].
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Gpu, ObjectCode};
    /// let gpu = Gpu::new(0)?;
    /// let code = ObjectCode::from_file("axpy.cubin")?.with_symbol("axpy<float>", "_Z4axpyIfEvT_PKS0_PS0_i");
    /// let axpy = code.load(&gpu)?.kernel("axpy<float>")?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn load(&self, gpu: &Gpu) -> Result<RawModule, Error> {
        self.check_loadable()?;
        RawModule::load_with_symbols(gpu, self.bytes(), self.name(), self.symbols().to_vec())
    }
}

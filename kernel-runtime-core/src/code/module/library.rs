//! [`RawLibrary`]: code loaded once for the whole process (`cuLibraryLoadData`), independent of
//! any context; [`RawLibrary::module`] gives the [`RawModule`] of one GPU's context
//! (`cuLibraryGetModule`), resolved there on first use. An application on eight GPUs loads
//! its kernels once instead of eight times.

use std::ffi::c_void;
use std::path::Path;
use std::sync::Arc;

use cudarc::driver::{DriverError, sys};

use super::{ModuleInner, aligned_copy, needs_copy};
use crate::code::image;
use crate::code::module::RawModule;
use crate::code::object_code::ObjectCode;
use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};

/// The driver's library handle and what messages need.
pub(crate) struct LibraryInner {
    /// One handle per image (one, or one per file of a module of several).
    handles: Vec<sys::CUlibrary>,
    name: String,
    /// The targets of the image, to explain a GPU it has no code for.
    targets: Vec<String>,
    symbols: Vec<(String, String)>,
}

// SAFETY: a CUlibrary is a process-wide handle the driver lets any thread use.
unsafe impl Send for LibraryInner {}
// SAFETY: as above; the handle is never mutated after load.
unsafe impl Sync for LibraryInner {}

impl Drop for LibraryInner {
    fn drop(&mut self) {
        for &h in &self.handles {
            // SAFETY: each handle came from a successful load and is unloaded once, after
            // every RawModule made from it (each holds this value) is gone.
            let _ = unsafe { driver::module::library_unload(h) };
        }
    }
}

/// Compiled code loaded once for every context and device of the process. Cheap to clone.
///
/// ```no_run
/// use cuda_kernel_runtime::{Gpu, RawLibrary};
/// let lib = RawLibrary::load_file("kernels.fatbin")?;
/// for ordinal in 0..Gpu::count()? {
///     let gpu = Gpu::new(ordinal)?;
///     let scale = lib.module(&gpu)?.kernel("scale")?; // no second load of the image
/// }
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct RawLibrary {
    inner: Arc<LibraryInner>,
}

impl std::fmt::Debug for RawLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawLibrary")
            .field("name", &self.inner.name)
            .finish()
    }
}

impl RawLibrary {
    /// Loads a fatbin, cubin or PTX image for the whole process.
    pub fn load_bytes(image: &[u8]) -> Result<RawLibrary, Error> {
        Self::load_named(image, "<bytes>", Vec::new())
    }

    /// Loads a fatbin, cubin or PTX file for the whole process.
    pub fn load_file(path: impl AsRef<Path>) -> Result<RawLibrary, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::load_named(&bytes, &path.display().to_string(), Vec::new())
    }

    pub(crate) fn load_named(
        image: &[u8],
        name: &str,
        symbols: Vec<(String, String)>,
    ) -> Result<RawLibrary, Error> {
        Self::load_images(&[image], name, symbols)
    }

    /// Loads `images` (one per file of a module of several) as one library.
    pub(crate) fn load_images(
        images: &[&[u8]],
        name: &str,
        symbols: Vec<(String, String)>,
    ) -> Result<RawLibrary, Error> {
        crate::device::init::ensure_driver()?;
        let mut inner = LibraryInner {
            handles: Vec::with_capacity(images.len()),
            name: name.to_owned(),
            targets: Vec::new(),
            symbols,
        };
        for image in images {
            // A failure drops `inner`, which unloads what was loaded so far.
            inner.handles.push(load_one(image)?);
            for t in image::inspect(image).targets {
                if !inner.targets.contains(&t) {
                    inner.targets.push(t);
                }
            }
        }
        Ok(RawLibrary {
            inner: Arc::new(inner),
        })
    }

    /// The library's name (file path for files).
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The library's code in `gpu`'s context, as a [`RawModule`] launching on `gpu`'s stream:
    /// kernels, globals and [`RawModule::load_eager`] work as for a module loaded there.
    pub fn module(&self, gpu: &Gpu) -> Result<RawModule, Error> {
        let inner = self.context_module(gpu)?;
        Ok(RawModule::from_parts(Arc::new(inner), gpu.clone()))
    }

    /// The library's modules in `gpu`'s context, with no kernel resolved yet.
    pub(crate) fn context_module(&self, gpu: &Gpu) -> Result<ModuleInner, Error> {
        let ctx = gpu.context().clone();
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let mut cu_modules = Vec::with_capacity(self.inner.handles.len());
        for &h in &self.inner.handles {
            // SAFETY: the library handle is live and a context is current.
            let r = unsafe { driver::module::library_get_module(h) };
            if let Err(DriverError(sys::CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU)) = r {
                return Err(Error::NoBinaryForGpu {
                    module: self.inner.name.clone(),
                    device: gpu.name().to_owned(),
                    device_arch: gpu.arch(),
                    archs: self.inner.targets.clone(),
                });
            }
            let m = r.call("cuLibraryGetModule")?;
            cu_modules.push(m);
        }
        Ok(ModuleInner {
            ctx,
            cu_modules,
            name: self.inner.name.clone(),
            kernels: Box::new([]),
            device: *gpu.limits(),
            symbols: self.inner.symbols.clone(),
            library: Some(self.inner.clone()),
        })
    }
}

/// Loads one image as a library.
fn load_one(image: &[u8]) -> Result<sys::CUlibrary, Error> {
    let owned;
    let ptr: *const c_void = if needs_copy(image) {
        owned = aligned_copy(image);
        owned.as_ptr().cast()
    } else {
        image.as_ptr().cast()
    };
    // SAFETY: `ptr` addresses a complete image (PTX copies are NUL-terminated) that outlives
    // the call; no options are passed.
    unsafe { driver::module::library_load_data(ptr) }.call("cuLibraryLoadData")
}

// Loading code given at run time once for the process is this file's concern.
impl ObjectCode {
    /// Loads the code once for every context of the process as a [`RawLibrary`] (whose
    /// modules accept the name expressions too); the same kinds as [`load`](Self::load).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let code = cuda_kernel_runtime::ObjectCode::from_file("k.fatbin")?;
    /// let lib = code.load_library()?;
    /// let k = lib.module(&gpu)?.kernel("saxpy")?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn load_library(&self) -> Result<RawLibrary, Error> {
        self.check_loadable()?;
        RawLibrary::load_named(self.bytes(), self.name(), self.symbols().to_vec())
    }
}

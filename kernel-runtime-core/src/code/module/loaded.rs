//! [`LoadedModule`] and [`load_module`]: what generated code uses for an embedded module.

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use cudarc::driver::CudaStream;

use super::cache::modules;
use super::runtime::{self, CompileOptions};
use super::spec::{ModuleSpec, SourceSpec};
use super::{Kernel, KernelRequest, Provenance, RawLibrary, RawModule, load};
use crate::code::object_code::ObjectCode;
use crate::device::gpu::Gpu;
use crate::error::Error;
use crate::launch::config::Launch;
use crate::launch::core::launch_kernel;

/// An embedded module loaded into a device, with the stream its launches go to. Cheap to clone.
///
/// ```no_run
/// use cuda_kernel_runtime::{__private::load_module, spec::ModuleSpec};
/// # static SPEC: ModuleSpec = ModuleSpec { name: "m", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[], units: &[], source: None, tuned: &[] };
/// let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let m = load_module(&gpu, &SPEC)?;
/// let on_side_stream = m.with_stream(&gpu.new_stream()?);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct LoadedModule {
    module: RawModule,
    spec: &'static ModuleSpec,
}

impl LoadedModule {
    /// The device.
    pub fn gpu(&self) -> &Gpu {
        self.module.gpu()
    }

    /// The stream launches go to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        self.module.gpu().stream()
    }

    /// The same module, launching on `stream`.
    pub fn with_stream(&self, stream: &Arc<CudaStream>) -> LoadedModule {
        LoadedModule {
            module: self.module.with_stream(stream),
            spec: self.spec,
        }
    }

    /// The module's metadata.
    pub fn spec(&self) -> &'static ModuleSpec {
        self.spec
    }

    /// The module as an ordinary [`RawModule`] (kernel handles, globals by name).
    pub fn module(&self) -> &RawModule {
        &self.module
    }

    /// A handle to kernel number `index` (occupancy, attributes, by-name launches).
    pub fn kernel(&self, index: usize) -> Result<Kernel, Error> {
        self.module.kernel_at(index)
    }

    /// Whether the image loaded for this GPU holds kernel `name` (see
    /// [`RawModule::has_kernel`]).
    pub fn has_kernel(&self, name: &str) -> bool {
        self.module.has_kernel(name)
    }

    /// Launches kernel number `kernel` with `args`, one tuple element per parameter in order:
    /// each is prepared (stream ordering, copies in), its parameter pointer goes into a stack
    /// array, the kernel is launched, and each is finished (events recorded, copies out).
    /// What every generated stub calls; the generic part is this thin, the launch itself is
    /// compiled once in this crate.
    ///
    /// # Safety
    /// As [`launch`](crate::__private::launch): each element must be of exactly its
    /// parameter's type, which generated stubs guarantee by their signatures.
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{__private::load_module, spec::ModuleSpec};
    /// # static SPEC: ModuleSpec = ModuleSpec { name: "m", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[], units: &[], source: None, tuned: &[] };
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let m = load_module(&gpu, &SPEC)?;
    /// // SAFETY: kernel 0 takes `(float, int)`.
    /// unsafe { m.launch(0, &cuda_kernel_runtime::Launch::for_num_elems(1), (1.0f32, 3i32))? };
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    #[inline]
    pub unsafe fn launch<A: crate::launch::args::tuple::KernelArgs>(
        &self,
        kernel: usize,
        cfg: &Launch,
        args: A,
    ) -> Result<(), Error> {
        args.with_params(self.stream(), |params| {
            // SAFETY: forwarded to the caller; `params` holds one pointer per element.
            unsafe { launch_params(self, kernel, cfg, params) }
        })
    }
}

/// Launches kernel number `kernel` of `module` on the module's stream with one pointer per
/// parameter in `params`: what [`launch`](crate::__private::launch) and
/// [`LoadedModule::launch`] do. Not generic: compiled once here, whatever the number of stubs
/// calling it.
///
/// # Safety
/// As [`launch`](crate::__private::launch).
pub(crate) unsafe fn launch_params(
    module: &LoadedModule,
    kernel: usize,
    cfg: &Launch,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    let m = module.module();
    let Some(slot) = m.inner.kernels.get(kernel) else {
        return Err(Error::BadIndex {
            module: m.name().to_owned(),
            what: "kernel",
            index: kernel,
        });
    };
    let info = slot.get(&m.inner)?;
    let stream = m.gpu().stream();
    // SAFETY: forwarded to the caller.
    unsafe { launch_kernel(&m.inner.ctx, &m.inner.device, info, stream, cfg, params) }
}

/// Loads `spec`'s image into `gpu`'s context, once per context: later calls (from any thread)
/// return the same module with `gpu`'s stream.
///
/// Returns [`Error::NoDeviceCode`] when the module was built without device code.
///
/// ```no_run
/// # use cuda_kernel_runtime::{__private::load_module, spec::ModuleSpec};
/// # static SPEC: ModuleSpec = ModuleSpec { name: "m", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[], units: &[], source: None, tuned: &[] };
/// let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let a = load_module(&gpu, &SPEC)?;
/// let b = load_module(&gpu, &SPEC)?; // cached
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub fn load_module(gpu: &Gpu, spec: &'static ModuleSpec) -> Result<LoadedModule, Error> {
    let key = (std::ptr::from_ref(spec).addr(), 0);
    let inner = modules(gpu).get_or_try_init(key, || {
        let requests = requests(spec);
        let (image, source) = match (spec.image, spec.source) {
            (None, Some(source)) => {
                let opts = CompileOptions::default();
                return runtime::compile_and_load(gpu, spec, source, &opts);
            }
            (image, source) => (device_code(spec, image)?, source),
        };
        let from = Provenance {
            module: spec.name,
            archs: Some(spec.archs),
            toolkit: Some(spec.toolkit),
        };
        match load(gpu, &images_of(spec, image), &requests, &from) {
            Err(Error::NoBinaryForGpu { .. } | Error::UnsupportedPtxVersion { .. })
                if source.is_some_and(|s| s.fallback) =>
            {
                let source = source.unwrap_or_else(|| unreachable!("checked by the guard"));
                let opts = CompileOptions::default();
                runtime::compile_and_load(gpu, spec, source, &opts)
            }
            other => other,
        }
    })?;
    Ok(LoadedModule {
        module: RawModule::from_parts(inner, gpu.clone()),
        spec,
    })
}

/// Compiles `spec`'s carried source with `opts` for `gpu` (through the disk cache), checks
/// the compiled parameter layouts against the stubs', and loads it: once per context and
/// variant.
///
/// ```no_run
/// # use cuda_kernel_runtime::{CompileOptions, __private::load_module_with, spec::ModuleSpec};
/// # static SPEC: ModuleSpec = ModuleSpec { name: "m", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[], units: &[], source: None, tuned: &[] };
/// let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let m = load_module_with(&gpu, &SPEC, &CompileOptions { defines: &[("TILE", "32")], options: &[] })?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub fn load_module_with(
    gpu: &Gpu,
    spec: &'static ModuleSpec,
    opts: &CompileOptions<'_>,
) -> Result<LoadedModule, Error> {
    let source = carried_source(spec)?;
    let key = (std::ptr::from_ref(spec).addr(), opts.key());
    let inner =
        modules(gpu).get_or_try_init(key, || runtime::compile_and_load(gpu, spec, source, opts))?;
    Ok(LoadedModule {
        module: RawModule::from_parts(inner, gpu.clone()),
        spec,
    })
}

/// Compiles `spec`'s carried source with `opts` for `target` (`sm_90`, `compute_90`) without
/// a GPU, through the disk cache, and checks the compiled parameter layouts against the
/// stubs'.
///
/// ```no_run
/// # use cuda_kernel_runtime::{CompileOptions, __private::compile_module, spec::ModuleSpec};
/// # static SPEC: ModuleSpec = ModuleSpec { name: "m", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[], units: &[], source: None, tuned: &[] };
/// let code = compile_module(&SPEC, "sm_90", &CompileOptions::default())?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub fn compile_module(
    spec: &'static ModuleSpec,
    target: &str,
    opts: &CompileOptions<'_>,
) -> Result<ObjectCode, Error> {
    runtime::compile_checked(spec, carried_source(spec)?, opts, target)
}

/// The source `spec` carries, or the error of a module that carries none.
fn carried_source(spec: &'static ModuleSpec) -> Result<&'static SourceSpec, Error> {
    spec.source.ok_or_else(|| Error::NoDeviceCode {
        module: spec.name.to_owned(),
    })
}

/// Loads `spec`'s image once for the whole process as a [`RawLibrary`]: later calls (from any
/// thread) return the same library.
///
/// ```no_run
/// # use cuda_kernel_runtime::{__private::{load_library, library_module}, spec::ModuleSpec};
/// # static SPEC: ModuleSpec = ModuleSpec { name: "m", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[], units: &[], source: None, tuned: &[] };
/// let lib = load_library(&SPEC)?;
/// let m = library_module(&cuda_kernel_runtime::Gpu::new(0)?, &SPEC, &lib)?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub fn load_library(spec: &'static ModuleSpec) -> Result<RawLibrary, Error> {
    static LIBRARIES: Mutex<Vec<(usize, RawLibrary)>> = Mutex::new(Vec::new());
    let image = device_code(spec, spec.image)?;
    let key = std::ptr::from_ref(spec).addr();
    let mut libraries = LIBRARIES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, lib)) = libraries.iter().find(|(k, _)| *k == key) {
        return Ok(lib.clone());
    }
    let lib = RawLibrary::load_images(&images_of(spec, image), spec.name, Vec::new())?;
    libraries.push((key, lib.clone()));
    Ok(lib)
}

/// `spec`'s module in `gpu`'s context, from `library` (its [`load_library`]): kernels
/// resolved once per context, as [`load_module`] does.
pub fn library_module(
    gpu: &Gpu,
    spec: &'static ModuleSpec,
    library: &RawLibrary,
) -> Result<LoadedModule, Error> {
    // Beside the per-context module of `load_module`.
    let key = (std::ptr::from_ref(spec).addr(), 1);
    let inner = modules(gpu).get_or_try_init(key, || {
        let mut inner = library.context_module(gpu)?;
        inner.resolve_declared(&requests(spec))?;
        Ok(inner)
    })?;
    Ok(LoadedModule {
        module: RawModule::from_parts(inner, gpu.clone()),
        spec,
    })
}

/// The module's image, or the error of a build without device code.
fn device_code(
    spec: &'static ModuleSpec,
    image: Option<&'static [u8]>,
) -> Result<&'static [u8], Error> {
    image.ok_or_else(|| Error::NoDeviceCode {
        module: spec.name.to_owned(),
    })
}

/// The images to load: the one container, or one per file of a module of several.
fn images_of(spec: &'static ModuleSpec, image: &'static [u8]) -> Vec<&'static [u8]> {
    if spec.units.is_empty() {
        vec![image]
    } else {
        spec.units
            .iter()
            .map(|u| image.get(u.offset..u.offset + u.len).unwrap_or_default())
            .collect()
    }
}

/// The declared kernels, as lookups.
fn requests(spec: &'static ModuleSpec) -> Vec<KernelRequest<'static>> {
    let unit_of = |index: usize| {
        spec.units
            .iter()
            .position(|u| u.kernels.iter().any(|&k| usize::from(k) == index))
    };
    spec.kernels
        .iter()
        .enumerate()
        .map(|(i, k)| KernelRequest {
            name: k.name,
            symbol: k.symbol,
            launch_bounds: k.max_threads,
            cluster_dims: k.cluster_dims,
            available: k.available,
            unit: unit_of(i),
        })
        .collect()
}

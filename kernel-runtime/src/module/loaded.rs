//! [`LoadedModule`] and [`load_module`]: what generated code uses for an embedded module.

use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::spec::ModuleSpec;
use super::{Kernel, KernelRequest, Module, Provenance, load};
use crate::error::Error;
use crate::gpu::Gpu;

/// An embedded module loaded into a device, with the stream its launches go to. Cheap to clone.
///
/// ```no_run
/// use kernel_runtime::__private::{load_module, ModuleSpec};
/// # static SPEC: ModuleSpec = ModuleSpec { name: "m", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[], units: &[] };
/// let gpu = kernel_runtime::Gpu::new(0)?;
/// let m = load_module(&gpu, &SPEC)?;
/// let on_side_stream = m.with_stream(&gpu.new_stream()?);
/// # Ok::<(), kernel_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct LoadedModule {
    module: Module,
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

    /// The module as an ordinary [`Module`] (kernel handles, globals by name).
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// A handle to kernel number `index` (occupancy, attributes, by-name launches).
    pub fn kernel(&self, index: usize) -> Result<Kernel, Error> {
        self.module.kernel_at(index)
    }

    /// Whether the image loaded for this GPU holds kernel `name` (see
    /// [`Module::has_kernel`]).
    pub fn has_kernel(&self, name: &str) -> bool {
        self.module.has_kernel(name)
    }
}

/// Loads `spec`'s image into `gpu`'s context, once per context: later calls (from any thread)
/// return the same module with `gpu`'s stream.
///
/// Returns [`Error::NoDeviceCode`] when the module was built without device code.
///
/// ```no_run
/// # use kernel_runtime::__private::{load_module, ModuleSpec};
/// # static SPEC: ModuleSpec = ModuleSpec { name: "m", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[], units: &[] };
/// let gpu = kernel_runtime::Gpu::new(0)?;
/// let a = load_module(&gpu, &SPEC)?;
/// let b = load_module(&gpu, &SPEC)?; // cached
/// # Ok::<(), kernel_runtime::Error>(())
/// ```
pub fn load_module(gpu: &Gpu, spec: &'static ModuleSpec) -> Result<LoadedModule, Error> {
    let image = spec.image.ok_or_else(|| Error::NoDeviceCode {
        module: spec.name.to_owned(),
    })?;
    let key = std::ptr::from_ref(spec).addr();
    let inner = gpu.inner().modules.get_or_try_init(key, || {
        let unit_of = |index: usize| {
            spec.units
                .iter()
                .position(|u| u.kernels.iter().any(|&k| usize::from(k) == index))
        };
        let kernels: Vec<KernelRequest<'_>> = spec
            .kernels
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
            .collect();
        let from = Provenance {
            module: spec.name,
            archs: Some(spec.archs),
            toolkit: Some(spec.toolkit),
        };
        let images: Vec<&[u8]> = if spec.units.is_empty() {
            vec![image]
        } else {
            spec.units
                .iter()
                .map(|u| image.get(u.offset..u.offset + u.len).unwrap_or_default())
                .collect()
        };
        load(gpu, &images, &kernels, &from)
    })?;
    Ok(LoadedModule {
        module: Module::from_parts(inner, gpu.clone()),
        spec,
    })
}

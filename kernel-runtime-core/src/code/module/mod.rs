//! Module loading: an image goes to the driver once, every kernel's function handle and limits
//! are resolved once, and load failures become errors that name the cause.
//!
//! Images go straight to `cuModuleLoadData` from where they lie (an embedded image is an 8-byte
//! aligned `static`, so nothing is copied). Only when that fails does the runtime load again with
//! `cuModuleLoadDataEx` to collect the JIT log for the error message.

pub(crate) mod cache;
mod external;
mod kernel;
mod kernel_config;
mod library;
mod loaded;
mod loading;
mod runtime;
pub(crate) mod spec;

use std::ffi::{CString, c_void};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64};

use cudarc::driver::sys::{self, CUfunction_attribute as F, CUresult};
use cudarc::driver::{CudaContext, DriverError};

pub use external::RawModule;
pub use kernel::Kernel;
pub use library::RawLibrary;
pub(crate) use loaded::launch_params;
pub use loaded::{
    LoadedModule, compile_module, library_module, load_library, load_module, load_module_with,
};
pub use loading::{LoadingMode, loading_mode};
pub use runtime::CompileOptions;

use crate::code::image::{self, ImageKind};
use crate::device::gpu::Gpu;
use crate::device::init::driver_version;
use crate::device::limits::DeviceLimits;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::launch::kernel_info::KernelInfo;
use crate::launch::label::KernelLabel;
use crate::launch::validate::{KernelLimits, PlainLimits};

/// A loaded module: the driver handles (one, or one per file of a module of several
/// whole-program files), its context, and its resolved kernels.
pub(crate) struct ModuleInner {
    pub(crate) ctx: Arc<CudaContext>,
    cu_modules: Vec<sys::CUmodule>,
    pub(crate) name: String,
    pub(crate) kernels: Box<[Slot]>,
    pub(crate) device: DeviceLimits,
    /// C++ name expressions and the symbols they stand for (`ObjectCode::with_symbol`).
    pub(crate) symbols: Vec<(String, String)>,
    /// The library whose per-context module this is (not unloaded here), if any.
    library: Option<Arc<library::LibraryInner>>,
}

/// A declared kernel as loaded: resolved, or absent from the image the driver chose.
pub(crate) enum Slot {
    /// In the loaded image.
    Ready(Arc<KernelInfo>),
    /// Compiled for other targets only.
    NotInImage {
        /// The kernel's name.
        name: String,
        /// The targets whose image holds it.
        available: &'static [&'static str],
    },
}

impl Slot {
    /// The kernel's name.
    pub(crate) fn name(&self) -> &str {
        match self {
            Slot::Ready(k) => &k.name,
            Slot::NotInImage { name, .. } => name,
        }
    }

    /// The resolved kernel, or the error that says it is compiled for other targets.
    #[inline]
    pub(crate) fn get(&self, module: &ModuleInner) -> Result<&Arc<KernelInfo>, Error> {
        match self {
            Slot::Ready(k) => Ok(k),
            Slot::NotInImage { name, available } => Err(not_in_image(module, name, available)),
        }
    }
}

/// The error of [`Slot::get`] for a kernel compiled for other targets only.
#[cold]
#[inline(never)]
fn not_in_image(module: &ModuleInner, name: &str, available: &[&str]) -> Error {
    Error::KernelNotInImage {
        module: module.name.clone(),
        kernel: name.to_owned(),
        device_arch: module.device.arch(),
        available: available.iter().map(|s| (*s).to_owned()).collect(),
    }
}

// SAFETY: a CUmodule may be used from any thread once its context is current; every use binds
// the context first.
unsafe impl Send for ModuleInner {}
// SAFETY: as above; the handle is never mutated after load.
unsafe impl Sync for ModuleInner {}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        if self.library.is_some() {
            // The library owns its per-context modules.
            return;
        }
        // Unloaded in its own context; the thread's is put back.
        let _keep = driver::context::KeepCurrent::new();
        self.ctx.record_err(self.ctx.bind_to_thread());
        for &m in &self.cu_modules {
            // SAFETY: each handle came from a successful load and is unloaded exactly once;
            // every function handle into it is owned by values that keep this module alive.
            self.ctx.record_err(unsafe { driver::module::unload(m) });
        }
    }
}

/// A kernel to resolve at load.
pub(crate) struct KernelRequest<'a> {
    pub name: &'a str,
    pub symbol: &'a str,
    pub launch_bounds: u32,
    pub cluster_dims: Option<[u32; 3]>,
    /// `Some(targets)` for a kernel some images lack: its absence is not an error.
    pub available: Option<&'static [&'static str]>,
    /// The driver module (file) that holds it; `None`: look in each.
    pub unit: Option<usize>,
}

/// What is known about where an image came from (for error messages).
pub(crate) struct Provenance<'a> {
    pub module: &'a str,
    pub archs: Option<&'a [&'a str]>,
    pub toolkit: Option<&'a str>,
}

/// Loads `images` (one, or one per file of a module of several) into `gpu`'s context and
/// resolves `kernels`.
pub(crate) fn load(
    gpu: &Gpu,
    images: &[&[u8]],
    kernels: &[KernelRequest<'_>],
    from: &Provenance<'_>,
) -> Result<ModuleInner, Error> {
    let ctx = gpu.context().clone();
    ctx.bind_to_thread().call("cuCtxSetCurrent")?;
    let mut inner = ModuleInner {
        ctx,
        cu_modules: Vec::with_capacity(images.len()),
        name: from.module.to_owned(),
        kernels: Box::new([]),
        device: *gpu.limits(),
        symbols: Vec::new(),
        library: None,
    };
    for image in images {
        // A failure drops `inner`, which unloads the images loaded so far.
        let m = load_one(gpu, image, from)?;
        inner.cu_modules.push(m);
    }
    inner.resolve_declared(kernels)?;
    Ok(inner)
}

impl ModuleInner {
    /// Resolves the declared `kernels` into slots: ready, or absent from the image the driver
    /// chose (for kernels compiled for some targets only).
    fn resolve_declared(&mut self, kernels: &[KernelRequest<'_>]) -> Result<(), Error> {
        let inner = &*self;
        let slots = kernels
            .iter()
            .map(|k| match (inner.resolve(k), k.available) {
                (Ok(info), _) => Ok(Slot::Ready(Arc::new(info))),
                (Err(Error::KernelNotFound { .. }), Some(available)) => Ok(Slot::NotInImage {
                    name: k.name.to_owned(),
                    available,
                }),
                (Err(e), _) => Err(e),
            })
            .collect::<Result<_, _>>()?;
        self.kernels = slots;
        Ok(())
    }
}

/// Loads one image.
fn load_one(gpu: &Gpu, image: &[u8], from: &Provenance<'_>) -> Result<sys::CUmodule, Error> {
    let owned;
    let ptr: *const c_void = if needs_copy(image) {
        owned = aligned_copy(image);
        owned.as_ptr().cast()
    } else {
        image.as_ptr().cast()
    };
    // SAFETY: `ptr` addresses a complete image (PTX copies are NUL-terminated) that outlives the
    // call; the driver copies what it keeps.
    match unsafe { driver::module::load_data(ptr) } {
        Ok(m) => Ok(m),
        Err(e) => Err(load_error(gpu, image, ptr, e, from)),
    }
}

impl ModuleInner {
    /// The driver modules to look for a symbol in: `unit`'s, or each.
    fn handles(&self, unit: Option<usize>) -> &[sys::CUmodule] {
        match unit {
            Some(u) if u < self.cu_modules.len() => &self.cu_modules[u..=u],
            _ => &self.cu_modules,
        }
    }

    /// Looks up one kernel and reads its limits.
    pub(crate) fn resolve(&self, k: &KernelRequest<'_>) -> Result<KernelInfo, Error> {
        let not_found = || Error::KernelNotFound {
            module: self.name.clone(),
            kernel: k.name.to_owned(),
            symbol: k.symbol.to_owned(),
        };
        let symbol = CString::new(k.symbol).map_err(|_| not_found())?;
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let mut found = None;
        for &m in self.handles(k.unit) {
            // SAFETY: the module handle is live (owned by `self`).
            match unsafe { driver::module::get_function(m, symbol.clone()) } {
                Ok(f) => {
                    found = Some(f);
                    break;
                }
                Err(DriverError(CUresult::CUDA_ERROR_NOT_FOUND)) => {}
                Err(e) => return Err(Error::driver("cuModuleGetFunction", e)),
            }
        }
        let function = found.ok_or_else(not_found)?;
        let attr = |a: F| -> Result<u32, Error> {
            // SAFETY: `function` is a live handle of this module.
            let v = unsafe { driver::module::get_function_attribute(function, a) }
                .call("cuFuncGetAttribute")?;
            Ok(u32::try_from(v).unwrap_or(0))
        };
        let limits = KernelLimits {
            max_threads: attr(F::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            launch_bounds: k.launch_bounds,
            static_shared: attr(F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            cluster_dims: k.cluster_dims,
        };
        Ok(KernelInfo {
            name: k.name.to_owned(),
            label: KernelLabel::intern(&self.name, k.name),
            function,
            limits,
            plain: PlainLimits::new(&limits, &self.device),
            max_dynamic_shared: AtomicU32::new(attr(
                F::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            )?),
            cluster_fit: AtomicU64::new(0),
        })
    }

    /// Looks up a global: its device address and size.
    pub(crate) fn global(&self, symbol: &str) -> Result<(sys::CUdeviceptr, usize), Error> {
        let missing = || Error::Global {
            module: self.name.clone(),
            global: symbol.to_owned(),
            problem: "no such symbol in the loaded image".to_owned(),
        };
        let c = CString::new(symbol).map_err(|_| missing())?;
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        for &m in &self.cu_modules {
            // SAFETY: the module handle is live (owned by `self`).
            match unsafe { driver::module::get_global(m, c.clone()) } {
                Ok(g) => return Ok(g),
                Err(DriverError(CUresult::CUDA_ERROR_NOT_FOUND)) => {}
                Err(e) => return Err(Error::driver("cuModuleGetGlobal", e)),
            }
        }
        Err(missing())
    }
}

/// Whether `image` must be copied: unaligned binaries, and PTX text without its NUL.
fn needs_copy(image: &[u8]) -> bool {
    match image::kind(image) {
        ImageKind::Ptx => image.last() != Some(&0),
        _ => !image.as_ptr().addr().is_multiple_of(8),
    }
}

/// An 8-byte aligned copy of `image`, NUL-terminated.
fn aligned_copy(image: &[u8]) -> Vec<u64> {
    let mut words = vec![0u64; image.len() / 8 + 1];
    for (w, chunk) in words.iter_mut().zip(image.chunks(8)) {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        *w = u64::from_ne_bytes(b);
    }
    words
}

/// Explains a failed load.
fn load_error(
    gpu: &Gpu,
    image: &[u8],
    ptr: *const c_void,
    e: DriverError,
    from: &Provenance<'_>,
) -> Error {
    let info = image::inspect(image);
    let module = from.module.to_owned();
    match e.0 {
        CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU => Error::NoBinaryForGpu {
            module,
            device: gpu.name().to_owned(),
            device_arch: gpu.arch(),
            archs: match from.archs {
                Some(a) if !a.is_empty() => a.iter().map(|s| (*s).to_owned()).collect(),
                _ => info.targets,
            },
        },
        CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => Error::UnsupportedPtxVersion {
            module,
            ptx_isa: info.ptx_isa,
            toolkit: from.toolkit.map(str::to_owned),
            driver: driver_version()
                .map_or_else(|_| "unknown".to_owned(), |(a, b)| format!("{a}.{b}")),
        },
        _ => match (Error::driver("cuModuleLoadData", e), jit_log(ptr)) {
            (
                Error::Driver {
                    call,
                    code,
                    name,
                    message,
                },
                Some(log),
            ) => Error::Driver {
                call,
                code,
                name,
                message: format!("{message}; JIT log: {log}"),
            },
            (err, _) => err,
        },
    }
}

/// Loads again with log buffers to collect what the JIT compiler said.
fn jit_log(ptr: *const c_void) -> Option<String> {
    const LEN: usize = 4096;
    let mut error = vec![0u8; LEN];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values: [*mut c_void; 2] = [error.as_mut_ptr().cast(), LEN as *mut c_void];
    // SAFETY: the buffers outlive the call and the option arrays have matching lengths; a module
    // that loads this time is unloaded at once.
    unsafe {
        if let Ok(module) = driver::module::load_data_ex(ptr, &mut options, &mut values) {
            let _ = driver::module::unload(module);
        }
    }
    let end = error.iter().position(|&b| b == 0).unwrap_or(LEN);
    let log = String::from_utf8_lossy(&error[..end]).trim().to_owned();
    (!log.is_empty()).then_some(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_without_nul_is_copied_with_one() {
        let text = b".version 9.0\n.target sm_90\n";
        assert!(needs_copy(text));
        let copy = aligned_copy(text);
        // SAFETY: reading the u64 buffer as bytes.
        let bytes =
            unsafe { std::slice::from_raw_parts(copy.as_ptr().cast::<u8>(), copy.len() * 8) };
        assert_eq!(&bytes[..text.len()], text);
        assert_eq!(bytes[text.len()], 0);
    }

    #[test]
    fn aligned_fatbin_is_not_copied() {
        static IMG: spec::Aligned<[u8; 16]> =
            spec::Aligned([0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(!needs_copy(&IMG.0));
    }
}

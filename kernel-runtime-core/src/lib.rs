//! The runtime of the kernel framework without its macros: devices, memory, module loading
//! and typed launches, on [`cudarc`].
//!
//! Programs depend on `cuda-kernel-runtime`, which re-exports everything here together with
//! the macros (`cuda_module!`, `#[derive(CudaType)]`, ...) and carries the guide. This crate
//! exists so that a build compiles it side by side with the macros' build library instead of
//! after it, as `serde_core` does for `serde`: a crate that re-exports a procedural macro
//! cannot start compiling before that macro is built.
//!
//! ```no_run
//! use cuda_kernel_runtime_core::{Gpu, Launch, RawModule};
//!
//! let gpu = Gpu::new(0)?; // no driver or no device: an `Err`, never a panic
//! let module = RawModule::load_file(&gpu, "saxpy.fatbin")?;
//! let saxpy = module.kernel("saxpy")?;
//! let x = gpu.upload(&[1.0f32; 1024])?;
//! let mut y = gpu.upload(&[2.0f32; 1024])?;
//! // SAFETY: saxpy(float a, const float* x, float* y, int n).
//! unsafe { saxpy.launch(&Launch::for_num_elems(1024), (3.0f32, &x, &mut y, 1024i32))? };
//! assert_eq!(gpu.download(&y)?, vec![5.0f32; 1024]);
//! # Ok::<(), cuda_kernel_runtime_core::Error>(())
//! ```

// Where another crate's docs link this crate's items when this crate's pages are not beside
// them (`cargo doc --no-deps`): the generated stubs' links to `TrackedBuffer`, `Launch`, ...
// then reach the published pages instead of being left as unresolved text. A test keeps the
// version equal to the package's.
#![doc(html_root_url = "https://docs.rs/cuda-kernel-runtime-core/0.1.0")]

// Where things live: one folder per concern, each with a `//!` head saying what it holds.
mod code;
#[cfg(feature = "nccl")]
mod collective;
mod cuda_type;
mod device;
mod driver;
mod env;
mod error;
pub mod fp;
mod generators;
mod launch;
mod memory;
pub mod profile;
mod streams;
mod texture;
mod tma;
pub mod tune;
pub mod vector;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// What a generated module says about itself: `m::METADATA` is a [`spec::ModuleSpec`]
/// (kernels with their parameter layouts, compiled targets, the toolkit, the embedded image).
/// Generated code builds these values as constants; a program reads them.
pub mod spec {
    pub use crate::code::module::spec::{
        GlobalSpec, KernelSpec, ModuleSpec, ParamSpec, SourceSpec, TunedSpec, UnitSpec, VariantSpec,
    };
}

// The device and its context.
pub use device::config::{CachePreference, ContextLimit};
pub use device::gpu::Gpu;
pub use device::limits::DeviceLimits;

// Memory, by kind.
pub use memory::copy3d::{Region, RegionMut};
pub use memory::device_memory::{DeviceMemory, DeviceMemoryMut};
pub use memory::ipc::{IpcBuffer, IpcEvent, IpcEventHandle, IpcMemHandle};
pub use memory::managed::{Advice, Location};
pub use memory::pinned::{PageLocked, PinnedBuffer};
pub use memory::pitched::Pitched;
pub use memory::pointer::{MemoryType, PointerAttributes};
pub use memory::pool::{MemoryPool, PoolOptions, PoolUsage};
#[cfg(target_os = "linux")]
pub use memory::pool_ipc::PoolPointer;
pub use memory::registered::Registered;
pub use memory::tracked::{TrackedBuffer, TrackedView, TrackedViewMut};

// Code: modules, object code, linking, run-time compilation, globals.
pub use code::global::Global;
pub use code::link_options::LinkOptions;
pub use code::linker::{Linked, Linker};
pub use code::module::{CompileOptions, Kernel, LoadingMode, RawLibrary, RawModule, loading_mode};
pub use code::nvrtc::{Nvrtc, Program};
pub use code::object_code::{CodeKernel, CodeKind, ObjectCode};

// Launches: the configuration, its validation, and what may be passed.
pub use error::ConfigError;
pub use launch::args::host::{In, InOut, Out};
pub use launch::args::null::Null;
pub use launch::args::tuple::KernelArgs;
pub use launch::args::values::{ByValue, RawDevicePtr};
pub use launch::config::{IntoDim3, Launch, MemSyncDomain};
pub use launch::event::{EventKey, LaunchEvent};

// Order of work.
pub use streams::graph::{DeviceGraph, Graph, GraphExecHandle};
pub use streams::graph_build::{Condition, ConditionHandle, GraphBuilder};
pub use streams::timing::DeviceTimes;

// Collectives across GPUs (the `nccl` feature; NCCL is opened at run time).
#[cfg(feature = "nccl")]
pub use collective::{
    communicator::{AbortHandle, Communicator, OnStream},
    element::NcclElement,
    group::Group,
    id::UniqueId,
    job::Job,
};
#[cfg(feature = "nccl")]
pub use cudarc::nccl::ReduceOp;

// TMA tensor maps.
pub use tma::{
    Im2colShape, Interleave, Swizzle, TensorMap, TensorMapError, TensorMapHandle, TensorMapOptions,
    TmaElement,
};

// Textures and surfaces.
pub use texture::{
    AddressMode, Array, ArrayFormat, FilterMode, SurfaceHandle, SurfaceObject, TextureDesc,
    TextureHandle, TextureObject,
};

pub use cuda_kernel_generate::Dtype;
pub use cuda_type::CudaType;
pub use error::Error;
pub use generators::runtime::{Arg, Element, Generated, GeneratedKernel};

// The vocabulary this crate shares with cudarc (buffers, streams, contexts).
pub use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr,
    PinnedHostSlice, UnifiedSlice, UnifiedView, UnifiedViewMut, ValidAsZeroBits,
};
pub use half::{bf16, f16};

#[cfg(test)]
mod doc_root_tests {
    /// The published docs other crates' pages link to are this version's.
    #[test]
    fn html_root_url_names_this_version() {
        let want = format!(
            "html_root_url = \"https://docs.rs/cuda-kernel-runtime-core/{}\"",
            env!("CARGO_PKG_VERSION")
        );
        assert!(include_str!("lib.rs").contains(&want), "{want}");
    }
}

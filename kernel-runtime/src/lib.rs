//! Run-time half of the kernel framework: devices, memory, module loading and typed launches,
//! on [`cudarc`].
//!
//! Kernels are written in CUDA C inside `cuda_module!` (or in `.cu` files built from
//! `build.rs`); the build compiles them into a fatbin embedded in the binary and generates one
//! typed, `unsafe` launch stub per kernel. This crate loads that fatbin once per device and
//! launches through a stack array of argument pointers: no heap allocation per launch.
//!
//! ```no_run
//! use kernel_runtime::{Gpu, LaunchConfig, Module};
//!
//! let gpu = Gpu::new(0)?; // no driver or no device: an `Err`, never a panic
//! let module = Module::load_file(&gpu, "saxpy.fatbin")?;
//! let saxpy = module.kernel("saxpy")?;
//! let x = gpu.upload(&[1.0f32; 1024])?;
//! let mut y = gpu.upload(&[2.0f32; 1024])?;
//! // SAFETY: saxpy(float a, const float* x, float* y, int n).
//! unsafe { saxpy.launch(&LaunchConfig::for_num_elems(1024), (3.0f32, &x, &mut y, 1024i32))? };
//! assert_eq!(gpu.download(&y)?, vec![5.0f32; 1024]);
//! # Ok::<(), kernel_runtime::Error>(())
//! ```
//!
//! # Without a driver
//!
//! cudarc panics if `libcuda` is missing. This crate checks for the library before the first
//! driver call, so [`Gpu::new`] returns [`Error::NoDriver`] or [`Error::NoDevice`] instead, and
//! a binary built here runs (or fails cleanly) on any machine.
//!
//! # Choosing cudarc's CUDA version
//!
//! cudarc compiles its driver bindings for exactly one CUDA version, chosen by a Cargo feature.
//! This crate forwards `cuda-12080`, `cuda-12090`, `cuda-13000` and `cuda-13010` and enables
//! `cuda-13000` by default: it matches nvcc 13.0, whose fatbins need a CUDA 13 (R580) driver
//! anyway. The bindings only name symbols; each driver function is resolved when first called,
//! so the choice does not raise the driver requirement by itself.
//!
//! An application that pins a different version, or that also depends on cudarc with its own
//! version feature, must make them agree (two version features in one build do not compile):
//!
//! ```toml
//! [dependencies]
//! kernel-runtime = { version = "0.1", default-features = false, features = ["cuda-12080"] }
//! ```
//!
//! or leave every version feature off and set `CUDARC_CUDA_VERSION=12080` in the build
//! environment. cudarc is used with `fallback-dynamic-loading`: `libcuda` is opened at run
//! time, and nothing CUDA is needed to build.
//!
//! # Streams and ordering
//!
//! A [`Gpu`] sends work to the device's default stream until [`Gpu::with_stream`] picks
//! another. While only the default stream is used, cudarc keeps no events and a launch costs one
//! context check plus `cuLaunchKernel`. After the first [`Gpu::new_stream`], cudarc orders each
//! buffer's uses across streams with events, and launches honour them (waits before, records
//! after). A program that orders its streams itself turns that off with
//! [`Gpu::order_streams_manually`] and joins streams with [`Gpu::wait_for`]; its launches on
//! several streams then cost what launches on one stream cost.

mod args;
mod config;
mod copy3d;
mod culink;
mod device_config;
mod driver;
mod env;
mod error;
pub mod fp;
mod global;
mod gpu;
mod graph;
mod host_args;
mod image;
mod include;
mod ipc;
mod kernel_args;
mod launch;
mod limits;
mod linker;
mod managed;
mod memory;
mod module;
mod nvrtc;
mod object_code;
mod ordering;
mod peer;
mod pinned;
mod pitched;
mod pointer;
mod registered;
mod texture;
mod timing;
mod validate;
mod value_args;
pub mod vector;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use config::{IntoDim3, LaunchConfig};
pub use copy3d::{Region, RegionMut};
pub use device_config::{CachePreference, Limit};
pub use error::Error;
pub use global::Global;
pub use gpu::Gpu;
pub use graph::Graph;
pub use host_args::{In, InOut, Out};
pub use ipc::{IpcBuffer, IpcEvent, IpcEventHandle, IpcMemHandle};
pub use kernel_args::KernelArgs;
pub use limits::DeviceLimits;
pub use linker::{LinkOptions, Linked, Linker};
pub use managed::{Advice, Location};
pub use module::{CompileOptions, Kernel, Library, LoadingMode, Module, loading_mode};
pub use nvrtc::{Nvrtc, Program};
pub use object_code::{CodeKernel, CodeKind, ObjectCode};
pub use pinned::{PageLocked, PinnedBuffer};
pub use pitched::Pitched;
pub use pointer::{MemoryType, PointerAttributes};
pub use registered::Registered;
pub use texture::{
    AddressMode, Array, ArrayFormat, FilterMode, SurfaceHandle, SurfaceObject, TextureDesc,
    TextureHandle, TextureObject,
};
pub use validate::ConfigError;
pub use value_args::{ByValue, RawDevicePtr};

pub use cudarc;
pub use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr,
    PinnedHostSlice, UnifiedSlice, UnifiedView, UnifiedViewMut, ValidAsZeroBits,
};
pub use half::{bf16, f16};
pub use kernel_macros::cuda_module;

//! Run-time half of the kernel framework: devices, memory, module loading and typed launches,
//! on [`cudarc`], and the macros that build kernels into typed stubs.
//!
//! Kernels are written in CUDA C inside `cuda_module!` (or in `.cu` files built from
//! `build.rs`); the build compiles them into a fatbin embedded in the binary and generates one
//! typed, `unsafe` launch stub per kernel. This crate loads that fatbin once per device and
//! launches through a stack array of argument pointers: no heap allocation per launch.
//!
//! ```no_run
//! use cuda_kernel_runtime::{Gpu, Launch, RawModule};
//!
//! let gpu = Gpu::new(0)?; // no driver or no device: an `Err`, never a panic
//! let module = RawModule::load_file(&gpu, "saxpy.fatbin")?;
//! let saxpy = module.kernel("saxpy")?;
//! let x = gpu.upload(&[1.0f32; 1024])?;
//! let mut y = gpu.upload(&[2.0f32; 1024])?;
//! // SAFETY: saxpy(float a, const float* x, float* y, int n).
//! unsafe { saxpy.launch(&Launch::for_num_elems(1024), (3.0f32, &x, &mut y, 1024i32))? };
//! assert_eq!(gpu.download(&y)?, vec![5.0f32; 1024]);
//! # Ok::<(), cuda_kernel_runtime::Error>(())
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
//! cuda-kernel-runtime = { version = "0.1", default-features = false, features = ["macros", "cuda-12080"] }
//! ```
//!
//! or leave every version feature off and set `CUDARC_CUDA_VERSION=12080` in the build
//! environment. cudarc is used with `fallback-dynamic-loading`: `libcuda` and NVRTC are opened
//! at run time, nothing CUDA is needed to build, and a missing driver is `Error::NoDriver`.
//! Another crate of the build may switch cudarc to `dynamic-linking` (candle-core's `cuda`
//! feature does) or `static-linking`, as do this crate's features of the same names: the
//! runtime builds and works in each mode, but the system's loader then links `libcuda` and
//! `libnvrtc` when the program starts, so a machine without the driver cannot start the
//! program at all (a loader error before `main`, not `Error::NoDriver`). Under static linking
//! turn on this crate's `static-linking` too, so that the runtime knows NVRTC is in the binary.
//! `cuda-version-from-build-system` takes the version from the nvcc the build finds; an
//! explicit version feature wins over it.
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
//!
//! # When a kernel misbehaves
//!
//! Kernels run asynchronously: what goes wrong inside one is reported by the next call that
//! waits for it ([`Gpu::synchronize`], a download, ...), not by the launch. What a kernel
//! prints with device `printf` reaches the host at that synchronizing call too, through C's
//! `stdout`; the driver prints a failed device `assert`'s message (its file, line, block,
//! thread and expression) to standard error there.
//!
//! - A failed device `assert` is [`Error::DeviceAssert`]; an illegal address, a trap and the
//!   other faults are [`Error::KernelFault`]. The driver does not say which kernel failed:
//!   both errors name the kernel launched most recently from the thread that got the error
//!   (``the kernel last launched from this thread: `poke` of module `m` ``). Recording it costs
//!   a launch one thread-local store.
//! - Before either error is returned the runtime flushes C's output streams, so that what the
//!   kernels printed comes before whatever the program prints about the error, even when
//!   `stdout` is a pipe (whose buffer C would otherwise hold until exit, and lose on an abort)
//!   and whatever the driver does about it.
//! - After a fault the CUDA context is lost: every later call on that GPU in the process fails
//!   with the same error. Restart the process to use the GPU again; a test that faults on
//!   purpose runs in a process of its own.
//!
//! To see launches in Nsight Systems or pick one out in Nsight Compute, build with the
//! `nvtx` feature: each launch is then wrapped in an NVTX range named `module::kernel`, and
//! [`profile::range`] marks the program's own phases (see [`profile`]).

// Where another crate's docs link this crate's items when this crate's pages are not beside
// them (`cargo doc --no-deps`). A test keeps the version equal to the package's.
#![doc(html_root_url = "https://docs.rs/cuda-kernel-runtime/0.1.0")]

// Everything but the macros lives in `cuda-kernel-runtime-core`, which a build compiles while
// the macros' build library compiles; this crate, which waits for both, is only these lines.
pub use cuda_kernel_runtime_core::*;
// cudarc itself, re-exported here rather than by the core crate: through the glob, rustdoc
// would copy every page of cudarc into these docs instead of linking to cudarc's own.
pub use cudarc;

// The macros (the `macros` feature, on by default).
#[cfg(feature = "macros")]
pub use cuda_kernel_macros::{
    CudaType, cuda_module, elementwise, host_functions, include_kernels, reduction, scan,
};

#[cfg(test)]
mod doc_root_tests {
    /// The published docs other crates' pages link to are this version's.
    #[test]
    fn html_root_url_names_this_version() {
        let want = format!(
            "html_root_url = \"https://docs.rs/cuda-kernel-runtime/{}\"",
            env!("CARGO_PKG_VERSION")
        );
        assert!(include_str!("lib.rs").contains(&want), "{want}");
    }
}

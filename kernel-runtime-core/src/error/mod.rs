//! The one error type of the runtime.
//!
//! Every fallible call returns [`Error`]. Driver failures the runtime can explain (no driver, no
//! device, no image for this GPU, PTX too new for the driver, a fault inside a kernel) get their
//! own variant; every other driver failure is [`Error::Driver`], which names the call and the
//! driver's code. The two checks made before the driver sees a request have their own error
//! types here, carried by `Error`: [`ConfigError`] (a launch limit, `config`) and
//! [`TensorMapError`] (a TMA rule, `tensor_map`). This module imports nothing of the crate but
//! the driver layer (whether the driver may be asked to describe a code) and the launch
//! record (which kernel a fault's error names).

mod config;
mod driver;
mod tensor_map;
#[cfg(test)]
mod tests;

pub use config::ConfigError;
pub(crate) use driver::DriverResultExt;
pub use tensor_map::{Swizzle, TensorMapError};

/// Everything that can go wrong in the runtime.
///
/// ```
/// use cuda_kernel_runtime::Error;
/// let e = Error::NoDevice { ordinal: 3, count: 1 };
/// assert_eq!(e.to_string(), "no CUDA device with ordinal 3: the driver reports 1 device(s)");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The CUDA driver library (`libcuda`) could not be loaded, or it is the toolkit's stub.
    #[error("no usable CUDA driver: {reason}")]
    NoDriver {
        /// What was found instead of a working driver.
        reason: String,
    },
    /// The driver loaded but there is no device with this ordinal.
    #[error("no CUDA device with ordinal {ordinal}: the driver reports {count} device(s)")]
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the driver reports.
        count: usize,
    },
    /// The module was built without device code (no nvcc at build time, or docs.rs).
    #[error(
        "module `{module}` was built without device code (nvcc was not available when it was compiled); \
         rebuild with a CUDA toolkit installed"
    )]
    NoDeviceCode {
        /// The module's name.
        module: String,
    },
    /// No image in the module runs on this GPU (`CUDA_ERROR_NO_BINARY_FOR_GPU`).
    #[error(
        "module `{module}` has no image for this GPU ({device}, {device_arch}): it embeds [{}]; \
         add {device_arch} (or a PTX target at or below it) to the module's arch list",
        .archs.join(", ")
    )]
    NoBinaryForGpu {
        /// The module's name.
        module: String,
        /// The device's name.
        device: String,
        /// The device's architecture, e.g. `sm_90`.
        device_arch: String,
        /// The targets the module embeds, e.g. `["sm_80", "compute_80"]`.
        archs: Vec<String>,
    },
    /// The module's PTX is newer than the driver's JIT compiler (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`).
    #[error(
        "module `{module}`: the driver (CUDA {driver}) cannot compile its PTX{}{}; \
         update the driver or embed SASS for this GPU",
        .ptx_isa.as_ref().map(|v| format!(" (PTX ISA {v})")).unwrap_or_default(),
        .toolkit.as_ref().map(|v| format!(", built by CUDA {v}")).unwrap_or_default()
    )]
    UnsupportedPtxVersion {
        /// The module's name.
        module: String,
        /// The PTX ISA version the module's PTX declares, when known.
        ptx_isa: Option<String>,
        /// The CUDA toolkit version that built the module, when known.
        toolkit: Option<String>,
        /// The CUDA version the driver supports, e.g. `12.8`.
        driver: String,
    },
    /// A kernel the module declares is missing from the image the driver picked.
    #[error(
        "kernel `{kernel}` is not in module `{module}` as loaded on this GPU (symbol `{symbol}`)"
    )]
    KernelNotFound {
        /// The module's name.
        module: String,
        /// The kernel's name.
        kernel: String,
        /// The symbol looked up.
        symbol: String,
    },
    /// A kernel compiled for some targets only, called on a GPU whose image (the one the
    /// driver chose from the fatbin) does not contain it. Nothing was launched.
    #[error(
        "kernel `{kernel}` of module `{module}` is not in the image loaded for this {device_arch} GPU; it is compiled for {} only",
        available.join(", ")
    )]
    KernelNotInImage {
        /// The module's name.
        module: String,
        /// The kernel's name.
        kernel: String,
        /// The device's architecture (`sm_80`).
        device_arch: String,
        /// The targets whose image holds the kernel (`sm_90`, `compute_90`).
        available: Vec<String>,
    },
    /// A module global was not found, or its size differs from the Rust type.
    #[error("global `{global}` of module `{module}`: {problem}")]
    Global {
        /// The module's name.
        module: String,
        /// The global's name.
        global: String,
        /// What is wrong.
        problem: String,
    },
    /// An index into a module's kernels or globals is out of range.
    #[error("module `{module}` has no {what} with index {index}")]
    BadIndex {
        /// The module's name.
        module: String,
        /// `"kernel"` or `"global"`.
        what: &'static str,
        /// The index given.
        index: usize,
    },
    /// A TMA tensor map the driver would refuse, or one reaching past its buffer.
    #[error("tensor map: {0}")]
    TensorMap(#[from] TensorMapError),
    /// A graph node update that cannot be made (no such launch, or not exactly one launch
    /// recorded for it).
    #[error("graph update: {0}")]
    GraphUpdate(String),
    /// A stream priority outside the device's range.
    #[error(
        "stream priority {requested} is outside the device's range: {greatest} (highest) to {least} (lowest)"
    )]
    StreamPriority {
        /// The priority asked for.
        requested: i32,
        /// The highest priority (the lowest number).
        greatest: i32,
        /// The lowest priority (the highest number).
        least: i32,
    },
    /// A launch configuration the device or the kernel cannot run; checked before the driver sees it.
    #[error("kernel `{kernel}`: {problem}")]
    InvalidConfig {
        /// The kernel's name.
        kernel: String,
        /// The limit that was broken.
        problem: ConfigError,
    },
    /// Two buffers of a copy differ in length.
    #[error("{what}: source has {src} element(s), destination has {dst}")]
    LengthMismatch {
        /// The operation.
        what: &'static str,
        /// Source length.
        src: usize,
        /// Destination length.
        dst: usize,
    },
    /// A slice given to a generated kernel (`elementwise!`, `reduction!`, `scan!`, or a
    /// run-time generated kernel) does not hold the kernel's element count.
    #[error(
        "generated kernel `{kernel}`: slice `{slice}` has {len} element(s), but {first} has {expected}; every slice of the kernel holds the same count"
    )]
    SliceLength {
        /// The kernel's name.
        kernel: &'static str,
        /// The slice that differs.
        slice: &'static str,
        /// Its length.
        len: usize,
        /// What the count comes from (the first slice, or "the result").
        first: &'static str,
        /// The count.
        expected: usize,
    },
    /// A kernel generated at run time cannot be written or launched as asked: a mistake in
    /// an expression, or arguments that do not match its parameters.
    #[error("generated kernel `{kernel}`: {message}")]
    Generated {
        /// The kernel's name.
        kernel: String,
        /// What is wrong.
        message: String,
    },
    /// A size computation overflowed.
    #[error("{what}: {len} element(s) of {elem_size} byte(s) overflow the address space")]
    SizeOverflow {
        /// The operation.
        what: &'static str,
        /// Number of elements.
        len: usize,
        /// Size of one element.
        elem_size: usize,
    },
    /// A kernel faulted (illegal address, trap, misaligned access, ...). The context is unusable
    /// afterwards; the process must exit to recover the device.
    ///
    /// The driver reports a fault at the next call that waits for the kernel, without saying
    /// which kernel it was: `kernel` names the kernel launched most recently from the thread
    /// that got the error, usually (not always: another thread's, or an earlier launch's) the
    /// one that faulted. What kernels printed with `printf` is flushed to standard output
    /// before this error is returned.
    ///
    /// ```
    /// use cuda_kernel_runtime::Error;
    /// let e = Error::KernelFault {
    ///     call: "cuStreamSynchronize",
    ///     code: 700,
    ///     name: "CUDA_ERROR_ILLEGAL_ADDRESS".into(),
    ///     message: "an illegal memory access was encountered".into(),
    ///     kernel: Some("`poke` of module `m`".into()),
    /// };
    /// assert!(e.to_string().contains("the kernel last launched from this thread: `poke` of module `m`"));
    /// assert_eq!(e.driver_code(), Some(700));
    /// ```
    #[error(
        "a kernel faulted ({}), reported by {call}: {name} ({message}); the CUDA context is now unusable",
        driver::launched(.kernel)
    )]
    KernelFault {
        /// The call that reported the fault (usually a synchronizing one).
        call: &'static str,
        /// The driver's code.
        code: u32,
        /// The code's name, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
        name: String,
        /// The driver's description.
        message: String,
        /// The kernel launched most recently from the thread that got the error, e.g.
        /// `` `poke` of module `m` ``; `None` when that thread launched none.
        kernel: Option<String>,
    },
    /// A device-side `assert` failed in a kernel (`CUDA_ERROR_ASSERT`, 710).
    ///
    /// The driver printed the assertion (its file and line, the function, the block and thread
    /// that failed it, and the expression) to standard error during the call that returned this
    /// error; what kernels printed with `printf` went to standard output, which the runtime
    /// flushed before returning it. As for every fault, the CUDA context is lost: every later
    /// call on this GPU in this process fails; restart the process. `kernel` names the kernel
    /// launched most recently from the thread that got the error, since the driver does not
    /// say which kernel failed.
    ///
    /// ```
    /// use cuda_kernel_runtime::Error;
    /// use cuda_kernel_runtime::cudarc::driver::{DriverError, sys::CUresult};
    /// let e = Error::driver("cuStreamSynchronize", DriverError(CUresult::CUDA_ERROR_ASSERT));
    /// assert!(matches!(e, Error::DeviceAssert { call: "cuStreamSynchronize", .. }));
    /// assert_eq!(e.driver_code(), Some(710));
    /// assert!(e.to_string().contains("device-side `assert` failed"));
    /// ```
    #[error(
        "a device-side `assert` failed in a kernel ({}), reported by {call}; the assertion \
         (file, line, block and thread) was printed to standard error; the CUDA context is \
         lost: every later call on this GPU in this process fails, restart the process",
        driver::launched(.kernel)
    )]
    DeviceAssert {
        /// The call that reported it (usually a synchronizing one).
        call: &'static str,
        /// The kernel launched most recently from the thread that got the error, e.g.
        /// `` `check` of module `m` ``; `None` when that thread launched none.
        kernel: Option<String>,
    },
    /// A host function of a module (a `host_functions!` binding) returned a CUDA error.
    #[error("host function `{function}` failed: {name} ({message})")]
    HostFunction {
        /// The C function.
        function: &'static str,
        /// Its `cudaError_t`.
        code: i32,
        /// The code's name, e.g. `cudaErrorInvalidValue`.
        name: String,
        /// The CUDA runtime's description of the code.
        message: String,
    },
    /// Any other driver failure.
    #[error("{call} failed: {name} ({message})")]
    Driver {
        /// The driver call (or runtime operation) that failed.
        call: &'static str,
        /// The driver's numeric code.
        code: u32,
        /// The code's name, e.g. `CUDA_ERROR_OUT_OF_MEMORY`.
        name: String,
        /// The driver's description of the code.
        message: String,
    },
    /// An object of one device's context used with another device's.
    #[error("{what} belongs to another device's context than the {user}")]
    ForeignContext {
        /// The object (`the LaunchEvent`).
        what: &'static str,
        /// What used it (`stream that waits on it`).
        user: &'static str,
    },
    /// The device (or the pair of devices) cannot do what was asked.
    #[error("{what} is not supported by {device}: {reason}")]
    Unsupported {
        /// What was asked (`prefetching managed memory to the device`).
        what: &'static str,
        /// The device, `NVIDIA H100 (device 0)`.
        device: String,
        /// Which capability is missing.
        reason: String,
    },
    /// A value given to a memory operation is out of its range (a copy's extent beyond a
    /// buffer's, a pitch smaller than a row).
    #[error("{what}: {problem}")]
    OutOfRange {
        /// The operation.
        what: &'static str,
        /// What is out of range, with the numbers.
        problem: String,
    },
    /// A handle for another process (a memory pool's file descriptor) could not be sent or
    /// received over the channel the program gave.
    #[error("{what}: {source}")]
    HandleTransfer {
        /// What was being done (`sending a memory pool's file descriptor`).
        what: &'static str,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A module file could not be read.
    #[error("cannot read module file `{path}`: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Bytes given as compiled code are none of the kinds CUDA knows.
    #[error(
        "`{name}` is not compiled CUDA code: not a cubin, fatbin, PTX, LTO-IR, host object or library \
         (first bytes {head})"
    )]
    UnknownCodeKind {
        /// The code's name (its file, or `<bytes>`).
        name: String,
        /// Its first bytes, in hex.
        head: String,
    },
    /// Code of a kind the driver cannot load was asked to load: it must be linked first.
    #[error(
        "`{name}` is {kind} code, which the driver does not load: link it (with the other code it \
         needs) into a cubin first"
    )]
    NeedsLinking {
        /// The code's name.
        name: String,
        /// Its kind.
        kind: cuda_kernel_objects::CodeKind,
    },
    /// nvJitLink, which run-time linking needs, could not be loaded.
    #[error(
        "nvJitLink is needed to link at run time but could not be loaded ({}); install the CUDA \
         toolkit's libnvJitLink (`pip install nvidia-nvjitlink==13.0.*` and add its `lib` folder \
         to LD_LIBRARY_PATH, or /usr/local/cuda/lib64), or name the file with `Linker::nvjitlink`",
        tried.join("; ")
    )]
    NvJitLinkMissing {
        /// Each attempt and why it failed.
        tried: Vec<String>,
    },
    /// A run-time link failed.
    #[error("linking for {arch} failed: {problem}\n{log}")]
    Link {
        /// The target linked for.
        arch: String,
        /// What went wrong.
        problem: String,
        /// nvJitLink's error log.
        log: String,
    },
    /// An input was made by a newer toolkit than the nvJitLink linking it (its LTO-IR
    /// version is one this release cannot read).
    #[error(
        "an input is newer than nvJitLink {}.{} (`{}`): link with the nvJitLink of the toolkit \
         that compiled it, or a newer one\n{log}",
        linker.0, linker.1, path.display()
    )]
    LinkerTooOld {
        /// The linker's release.
        linker: (u32, u32),
        /// The linker's file.
        path: std::path::PathBuf,
        /// nvJitLink's error log.
        log: String,
    },
    /// A run-time link found a symbol no input defines.
    #[error("linking failed: `{symbol}` is used but no input defines it\n{log}")]
    UndefinedSymbol {
        /// The symbol.
        symbol: String,
        /// nvJitLink's error log.
        log: String,
    },
    /// Compiled code could not be read to list its targets and kernels.
    #[error("cannot read `{name}`: {reason}")]
    UnreadableCode {
        /// The code's name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// NVRTC, which compiling at run time needs, could not be loaded.
    #[error(
        "NVRTC is needed to compile CUDA at run time but could not be loaded ({}); install the \
         CUDA toolkit's libnvrtc (/usr/local/cuda/lib64), or `pip install \
         nvidia-cuda-nvrtc==13.0.*` and add its `nvidia/cu13/lib` folder to LD_LIBRARY_PATH or \
         name its libnvrtc.so.13 in KERNEL_NVRTC_LIBRARY",
        tried.join("; ")
    )]
    NoNvrtc {
        /// Each place tried and why it failed.
        tried: Vec<String>,
    },
    /// A compilation target NVRTC does not know or does not compile for.
    #[error("cannot compile for `{target}`: {supported}")]
    UnsupportedTarget {
        /// The target asked for.
        target: String,
        /// What is accepted instead.
        supported: String,
    },
    /// NVRTC rejected the source or its options.
    #[error("compiling `{program}` failed (options: {}):\n{log}", options.join(" "))]
    Compile {
        /// The program's name (the file name in the log's `name(line): error` lines).
        program: String,
        /// NVRTC's log.
        log: String,
        /// The options it was given.
        options: Vec<String>,
    },
    /// An NVRTC call failed for a reason other than the source.
    #[error("{call} failed: {problem}")]
    Nvrtc {
        /// The NVRTC function.
        call: &'static str,
        /// NVRTC's description.
        problem: String,
    },
    /// Code compiled at run time passes a kernel's parameters differently from the
    /// declarations the module's stubs were generated from (a define that changes a type, a
    /// different header): launching would pass the wrong bytes.
    #[error(
        "module `{module}` compiled at run time ({variant}): kernel `{kernel}` takes parameters \
         at {compiled:?} (offset, size) but its stubs were generated for {declared:?}; a define \
         or header changed a parameter's type"
    )]
    LayoutMismatch {
        /// The module's name.
        module: String,
        /// The kernel.
        kernel: String,
        /// The target and defines compiled with, `sm_90, TILE=32`.
        variant: String,
        /// The build-time layout.
        declared: Box<[(u32, u32)]>,
        /// The compiled layout.
        compiled: Box<[(u32, u32)]>,
    },
    /// NCCL, which collectives need (the `nccl` feature), could not be loaded.
    #[error(
        "NCCL is needed for collectives but could not be loaded ({}); install NCCL's \
         libnccl.so.2 (the `libnccl2` package, or `pip install nvidia-nccl-cu13` and add its \
         `nvidia/nccl/lib` folder to LD_LIBRARY_PATH), or name the file in KERNEL_NCCL_LIBRARY",
        tried.join("; ")
    )]
    NoNccl {
        /// Each library tried and why it failed.
        tried: Vec<String>,
    },
    /// An NCCL call failed.
    #[error("{call} failed: {name} ({message})")]
    Nccl {
        /// The NCCL call, `ncclAllReduce`.
        call: &'static str,
        /// NCCL's numeric `ncclResult_t`.
        code: u32,
        /// The code's name, `ncclInvalidUsage`.
        name: &'static str,
        /// NCCL's description of the code and, where it keeps one, its last message (one per
        /// process, so it may be an earlier call's).
        message: String,
    },
    /// A collective's arguments do not fit its communicator (a root or peer that is not a
    /// rank, buffer lengths that disagree with the number of ranks).
    #[error("{call}: {problem}")]
    Collective {
        /// The collective, `ncclAllGather`.
        call: &'static str,
        /// What does not fit, with the numbers.
        problem: String,
    },
    /// The ranks of a job could not meet: a launcher's variable is missing or unreadable, or
    /// rank 0 could not be reached (or reached by every rank) in time (`Job`).
    #[error("joining the ranks of a job: {problem}")]
    Rendezvous {
        /// What is missing or unreachable: the variable, or the address and the time waited.
        problem: String,
    },
    /// A tuned kernel could not choose a variant: every variant failed to launch, a pinned
    /// variant is not in its set, or its embedded table cannot be read (`tune::Tuner`).
    #[error("tuning `{kernel}`: {problem}")]
    Tuning {
        /// The tuned kernel's name.
        kernel: String,
        /// What went wrong: each variant's failure, the missing pin, the table's line.
        problem: String,
    },
}

//! The error type of the build pipeline.
//!
//! Every message names what failed and where: the nvcc command line and its output,
//! the `.cu` file and line, every place that was searched for a toolkit.

use std::path::PathBuf;

/// Anything that stops a module from being built.
///
/// ```
/// let e = cuda_kernel_build::Error::UnknownArch {
///     arch: "sm_91".into(),
///     supported: vec!["sm_80".into(), "sm_90".into()],
/// };
/// assert!(e.to_string().contains("sm_91"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No nvcc anywhere.
    #[error("{}", crate::diagnostics::build::nvcc_not_found(.tried))]
    NvccNotFound {
        /// Every place that was looked at, with what was found there.
        tried: Vec<String>,
    },
    /// nvcc exists but could not be started.
    #[error("failed to run nvcc `{}`", .nvcc.display())]
    NvccSpawn {
        /// The nvcc that was started.
        nvcc: PathBuf,
        /// Why it could not start.
        #[source]
        source: std::io::Error,
    },
    /// `nvcc --version` printed something we do not understand.
    #[error("`{} --version` printed no release number:\n{output}", .nvcc.display())]
    NvccVersion {
        /// The nvcc that was asked.
        nvcc: PathBuf,
        /// What it printed.
        output: String,
    },
    /// A target architecture the toolkit does not support.
    #[error(
        "unknown or unsupported GPU architecture `{arch}`; this nvcc supports: {} (with `compute_` for PTX, and `a`/`f` suffixes on sm_90+/sm_100+)",
        .supported.join(", ")
    )]
    UnknownArch {
        /// The name as given.
        arch: String,
        /// What `nvcc --list-gpu-code` lists.
        supported: Vec<String>,
    },
    /// nvcc ran and failed.
    #[error("{}", crate::diagnostics::build::nvcc_failed(.location.as_deref(), .status, .command, .output, .hint.as_deref()))]
    NvccFailed {
        /// `file:line` of nvcc's first error, when it printed one.
        location: Option<String>,
        /// Exit status as text (`exit status: 1`, `signal: 9`).
        status: String,
        /// The command line, quoted for a shell.
        command: String,
        /// Everything nvcc printed, each diagnostic once.
        output: String,
        /// How to fix it, when the output shows a known cause (a library's header missing).
        hint: Option<String>,
    },
    /// A file could not be read or written.
    #[error("{action} `{}`", .path.display())]
    Io {
        /// What was being done (`failed to read`).
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The fatbin nvcc wrote could not be read.
    #[error("cannot read the fatbin `{}`", .path.display())]
    Fatbin {
        /// The fatbin.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: cuda_kernel_objects::Error,
    },
    /// The host object nvcc wrote through a wrapper (see [`crate::Build::nvcc_wrapper`])
    /// does not hold exactly one fatbin container.
    #[error(
        "the host object `{}` nvcc wrote through the wrapper holds {found} fatbin containers, \
         expected one",
        .path.display()
    )]
    FatbinNotInObject {
        /// The object.
        path: PathBuf,
        /// How many containers it holds.
        found: usize,
    },
    /// A builder or macro option is invalid.
    #[error("{0}")]
    InvalidOption(String),
    /// Errors found in the CUDA declarations or the compiled images, each with its location.
    #[error("{}", .0)]
    Diagnostics(crate::diagnostics::Diagnostics),

    /// The Rust types a module shares with CUDA cannot be read or declared; each problem
    /// names its file, line and column.
    #[error("{}", .problems.join("\n"))]
    SharedTypes {
        /// `file:line:col: error: message`, one per problem.
        problems: Vec<String>,
    },
    /// nvJitLink or nvFatbin is missing, too old, or failed.
    #[error(transparent)]
    LinkLibrary(#[from] LinkLibraryError),
    /// The device link of a module's files failed.
    #[error("{}", crate::diagnostics::build::device_link_failed(.mode, .target, .problems, .log))]
    DeviceLink {
        /// `rdc` or `lto`.
        mode: &'static str,
        /// The target whose link failed (`sm_90`).
        target: String,
        /// Each symbol problem, naming the symbol and the files.
        problems: Vec<String>,
        /// The linker's command and error log.
        log: String,
    },
    /// A file calls a device function it does not define, without device linking.
    #[error("{}", crate::diagnostics::build::needs_rdc(.file, .symbol, crate::diagnostics::build::Door::Build))]
    NeedsRdc {
        /// The file with the call.
        file: String,
        /// The function (demangled when C++).
        symbol: String,
        /// nvcc's error.
        #[source]
        source: Box<Error>,
    },
    /// The host code of a module (`Build::host_code`) did not compile.
    #[error("module `{module}`: the host code did not compile:\n{message}")]
    HostCode {
        /// The module.
        module: String,
        /// What `cc` (nvcc) said.
        message: String,
    },
    /// A file launches kernels from device code (dynamic parallelism) without device linking.
    #[error("{}", crate::diagnostics::build::needs_device_runtime(.at, crate::diagnostics::build::Door::Build))]
    NeedsDeviceRuntime {
        /// The file.
        file: String,
        /// `file:line` of the first launch nvcc names.
        at: String,
        /// nvcc's error.
        #[source]
        source: Box<Error>,
    },
}

/// Diagnostics collected by the front end and the checks, as an error.
impl From<crate::diagnostics::Diagnostics> for Error {
    fn from(d: crate::diagnostics::Diagnostics) -> Self {
        Error::Diagnostics(d)
    }
}

impl Error {
    /// Wraps an I/O error with what was being done to which path.
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

/// A library could not be found, opened, or used.
///
/// ```
/// let e = cuda_kernel_build::LinkLibraryError::NotFound {
///     library: "nvJitLink", needed_for: "device linking (rdc)".into(),
///     tried: vec!["/opt/cuda/lib64".into()], wheel: "nvidia-nvjitlink==13.0.*",
///     env: "KERNEL_BUILD_NVJITLINK",
/// };
/// assert!(e.to_string().contains("nvidia-nvjitlink"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LinkLibraryError {
    /// Not in any folder that was searched.
    #[error(
        "{library} is needed for {needed_for} but was not found. Looked in:\n{}\nTo fix: run \
         `cuda-kernel-inspect toolkit install` (installs `{wheel}` with nvcc), install it with \
         `pip install {wheel}` next to the nvcc in use, or set `{env}` to the library file",
        tried.iter().map(|t| format!("  - {t}")).collect::<Vec<_>>().join("\n")
    )]
    NotFound {
        /// The library.
        library: &'static str,
        /// What the build asked for that needs it.
        needed_for: String,
        /// Every place looked at.
        tried: Vec<String>,
        /// The pip wheel that provides it.
        wheel: &'static str,
        /// The variable that names it explicitly.
        env: &'static str,
    },
    /// Found but not loadable, or too old.
    #[error("cannot use {library} `{}`: {detail}", .path.display())]
    Unusable {
        /// The library.
        library: &'static str,
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        detail: String,
    },
    /// A call failed in a way that is not about the user's code.
    #[error("{library}: {call} failed: {detail}")]
    Call {
        /// The library.
        library: &'static str,
        /// The function called.
        call: &'static str,
        /// The result code and any log.
        detail: String,
    },
}

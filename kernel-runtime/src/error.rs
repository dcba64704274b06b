//! The one error type of the runtime.
//!
//! Every fallible call returns [`Error`]. Driver failures the runtime can explain (no driver, no
//! device, no image for this GPU, PTX too new for the driver, a fault inside a kernel) get their
//! own variant; every other driver failure is [`Error::Driver`], which names the call and the
//! driver's code.

use cudarc::driver::{DriverError, sys::CUresult};

use crate::validate::ConfigError;

/// Everything that can go wrong in the runtime.
///
/// ```
/// use kernel_runtime::Error;
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
    #[error(
        "a kernel faulted, reported by {call}: {name} ({message}); the CUDA context is now unusable"
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
    /// A module file could not be read.
    #[error("cannot read module file `{path}`: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Codes that mean a kernel faulted and the context is lost.
const FAULTS: [CUresult; 8] = [
    CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
    CUresult::CUDA_ERROR_LAUNCH_FAILED,
    CUresult::CUDA_ERROR_MISALIGNED_ADDRESS,
    CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION,
    CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE,
    CUresult::CUDA_ERROR_INVALID_PC,
    CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR,
    CUresult::CUDA_ERROR_ASSERT,
];

impl Error {
    /// Turns a driver error from `call` into an [`Error`], naming kernel faults.
    ///
    /// ```
    /// use kernel_runtime::Error;
    /// use kernel_runtime::cudarc::driver::{DriverError, sys::CUresult};
    /// let e = Error::driver("cuCtxSynchronize", DriverError(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS));
    /// assert!(matches!(e, Error::KernelFault { ref name, .. } if name == "CUDA_ERROR_ILLEGAL_ADDRESS"));
    /// ```
    pub fn driver(call: &'static str, err: DriverError) -> Self {
        let code = err.0;
        let name = format!("{code:?}");
        let message = describe(err);
        if FAULTS.contains(&code) {
            Error::KernelFault {
                call,
                code: code as u32,
                name,
                message,
            }
        } else {
            Error::Driver {
                call,
                code: code as u32,
                name,
                message,
            }
        }
    }

    /// The driver's code when this error came from the driver.
    ///
    /// ```
    /// use kernel_runtime::Error;
    /// assert_eq!(Error::NoDevice { ordinal: 0, count: 0 }.driver_code(), None);
    /// ```
    pub fn driver_code(&self) -> Option<u32> {
        match self {
            Error::Driver { code, .. } | Error::KernelFault { code, .. } => Some(*code),
            _ => None,
        }
    }
}

impl From<DriverError> for Error {
    /// For cudarc calls made directly (e.g. `PinnedHostSlice::as_slice`), so `?` works; the
    /// call is not known, so it is named generically.
    fn from(err: DriverError) -> Self {
        Error::driver("CUDA driver call", err)
    }
}

/// The driver's text for `err`, asked only once the driver library is known to be loaded (asking
/// without it would make cudarc panic).
fn describe(err: DriverError) -> String {
    if !crate::driver::is_loaded() {
        return "no description: the driver is not loaded".to_owned();
    }
    match err.error_string() {
        Ok(s) => s.to_string_lossy().into_owned(),
        Err(_) => "no description from the driver".to_owned(),
    }
}

/// Shorthand: maps a cudarc result, naming the call.
pub(crate) trait DriverResultExt<T> {
    /// Maps `Err(DriverError)` to [`Error::driver`] with `call`.
    fn call(self, call: &'static str) -> Result<T, Error>;
}

impl<T> DriverResultExt<T> for Result<T, DriverError> {
    #[inline]
    fn call(self, call: &'static str) -> Result<T, Error> {
        self.map_err(|e| Error::driver(call, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_are_named() {
        for code in FAULTS {
            let e = Error::driver("cuStreamSynchronize", DriverError(code));
            assert!(
                matches!(
                    e,
                    Error::KernelFault {
                        call: "cuStreamSynchronize",
                        ..
                    }
                ),
                "{e:?}"
            );
        }
    }

    #[test]
    fn other_codes_are_driver_errors_with_name() {
        let e = Error::driver(
            "cuMemAlloc",
            DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY),
        );
        match e {
            Error::Driver {
                call, code, name, ..
            } => {
                assert_eq!(call, "cuMemAlloc");
                assert_eq!(code, 2);
                assert_eq!(name, "CUDA_ERROR_OUT_OF_MEMORY");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn messages_name_the_problem() {
        let e = Error::NoBinaryForGpu {
            module: "vecmath".into(),
            device: "NVIDIA H200".into(),
            device_arch: "sm_90".into(),
            archs: vec!["sm_80".into(), "compute_80".into()],
        };
        let s = e.to_string();
        assert!(
            s.contains("sm_90") && s.contains("[sm_80, compute_80]"),
            "{s}"
        );
        let e = Error::UnsupportedPtxVersion {
            module: "m".into(),
            ptx_isa: Some("9.0".into()),
            toolkit: Some("13.0".into()),
            driver: "12.8".into(),
        };
        let s = e.to_string();
        assert!(
            s.contains("CUDA 12.8") && s.contains("PTX ISA 9.0") && s.contains("CUDA 13.0"),
            "{s}"
        );
    }
}

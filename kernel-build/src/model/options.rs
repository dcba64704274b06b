//! The options of a build that the model records: how several files become one module's
//! device code, what it records of its source, and whether it is compiled at run time.

use serde::{Deserialize, Serialize};

/// How the files of a module become its device code.
///
/// ```
/// use cuda_kernel_build::LinkMode;
/// assert_eq!(LinkMode::default(), LinkMode::Whole);
/// assert_eq!(LinkMode::Lto.name(), "lto");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LinkMode {
    /// Every file is a whole program of its own (nvcc's default): no device link; a
    /// kernel can only call device functions of its own file.
    #[default]
    Whole,
    /// Relocatable device code (`-rdc=true`), device-linked per target by nvJitLink:
    /// files may call each other's `__device__` functions and use each other's variables.
    Rdc,
    /// As `Rdc`, but every file is compiled to LTO-IR and nvJitLink optimises the whole
    /// module per target (cross-file inlining).
    Lto,
}

impl LinkMode {
    /// The option's name: `whole`, `rdc`, `lto`.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_build::LinkMode::Rdc.name(), "rdc");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            LinkMode::Whole => "whole",
            LinkMode::Rdc => "rdc",
            LinkMode::Lto => "lto",
        }
    }
}

/// What a module's device code records of its source, for the tools that read it
/// (compute-sanitizer, cuda-gdb, Nsight Compute). Chosen from the request and the
/// environment when the module is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum DeviceDebug {
    /// Nothing: the smallest images, and tools report byte offsets only.
    None,
    /// Line tables (`-lineinfo`): tools name the file and line; the machine code is the
    /// same as without them.
    #[default]
    Lines,
    /// A debug build (`-G`): unoptimised code with variables and stepping for cuda-gdb.
    Full,
}

impl DeviceDebug {
    /// The flag nvcc and NVRTC take for it.
    pub(crate) fn compiler_flag(self) -> Option<&'static str> {
        match self {
            DeviceDebug::None => None,
            DeviceDebug::Lines => Some("-lineinfo"),
            DeviceDebug::Full => Some("-G"),
        }
    }

    /// The option nvJitLink takes for it, so that a device link keeps what the objects hold.
    pub(crate) fn link_option(self) -> Option<&'static str> {
        match self {
            DeviceDebug::None => None,
            DeviceDebug::Lines => Some("-lineinfo"),
            DeviceDebug::Full => Some("-g"),
        }
    }
}

/// Whether a module is compiled at run time.
///
/// ```
/// use cuda_kernel_build::RuntimeCompile;
/// assert_eq!(RuntimeCompile::default(), RuntimeCompile::Off);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RuntimeCompile {
    /// Compiled by nvcc at build time only.
    #[default]
    Off,
    /// Compiled by NVRTC at run time only: the build needs no nvcc and embeds the source.
    Only,
    /// Compiled by nvcc at build time, and by NVRTC at run time on a GPU the fatbin has no
    /// image for.
    Fallback,
}

/// The source a module compiled at run time carries.
///
/// ```
/// let s = cuda_kernel_build::RuntimeSource { name: "k.cu".into(), text: String::new(),
///     headers: vec![], defines: vec![], options: vec![], fallback: false };
/// assert!(s.headers.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuntimeSource {
    /// The program's name for NVRTC (`k.cu`, or `<module>.cu` for inline text), which its
    /// messages use unless the text starts with a `#line` directive (inline text with line
    /// tables names its Rust file).
    pub name: String,
    /// The source text.
    pub text: String,
    /// The user's headers it includes, by the name written in the `#include` line.
    pub headers: Vec<(String, String)>,
    /// The module's definitions.
    pub defines: Vec<(String, Option<String>)>,
    /// NVRTC options (the module's flags).
    pub options: Vec<String>,
    /// Compiled at run time only when the fatbin has no image for the GPU.
    pub fallback: bool,
}

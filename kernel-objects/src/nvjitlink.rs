//! nvJitLink, loaded at run time: one link of several inputs (cubin, PTX, LTO-IR, fatbin,
//! host object, library) for one target, with the linker's logs. Used by the build (device
//! linking of `rdc`/`lto` modules) and by the runtime (`Linker`); each decides where the
//! library is found. Handles are never shared: links run on any thread.
//!
//! nvJitLink's one checked layer: every entry point is resolved when the library is opened
//! (a missing one is [`OpenError::MissingFunction`] naming it), and each is called in one
//! method here that returns its result as `Ok` or a [`LinkFailure`] naming the call (`Link`
//! for the calls on a handle, which is destroyed when it drops).

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};

use crate::kind::CodeKind;
use crate::native::Library;

type Handle = *mut c_void;
type SizeFn = unsafe extern "C" fn(Handle, *mut usize) -> c_int;
type FillFn = unsafe extern "C" fn(Handle, *mut c_char) -> c_int;

/// The entry points, by the names of the CUDA 13 header (`__nvJitLinkCreate_13_0` ...).
#[derive(Clone, Copy)]
struct Api {
    create: unsafe extern "C" fn(*mut Handle, u32, *const *const c_char) -> c_int,
    destroy: unsafe extern "C" fn(*mut Handle) -> c_int,
    add_data: unsafe extern "C" fn(Handle, c_int, *const c_void, usize, *const c_char) -> c_int,
    complete: unsafe extern "C" fn(Handle) -> c_int,
    cubin_size: SizeFn,
    cubin: FillFn,
    ptx_size: SizeFn,
    ptx: FillFn,
    error_log_size: SizeFn,
    error_log: FillFn,
    info_log_size: SizeFn,
    info_log: FillFn,
}

/// What one input is (`nvJitLinkInputType`).
///
/// ```
/// use cuda_kernel_objects::{CodeKind, nvjitlink::InputKind};
/// assert_eq!(InputKind::from(CodeKind::LtoIr), InputKind::LtoIr);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A cubin (relocatable or not).
    Cubin = 1,
    /// PTX text.
    Ptx = 2,
    /// LTO-IR.
    LtoIr = 3,
    /// A fatbin.
    Fatbin = 4,
    /// A host object holding device code.
    Object = 5,
    /// An archive of such objects.
    Library = 6,
}

impl From<CodeKind> for InputKind {
    fn from(kind: CodeKind) -> InputKind {
        match kind {
            CodeKind::Cubin => InputKind::Cubin,
            CodeKind::Ptx => InputKind::Ptx,
            CodeKind::LtoIr => InputKind::LtoIr,
            CodeKind::Fatbin => InputKind::Fatbin,
            CodeKind::Object => InputKind::Object,
            CodeKind::Library => InputKind::Library,
        }
    }
}

/// One input: a name for the logs, its kind and bytes.
///
/// ```
/// use cuda_kernel_objects::nvjitlink::{InputKind, LinkInput};
/// let input = LinkInput { name: "a.ltoir", kind: InputKind::LtoIr, bytes: &[] };
/// assert_eq!(input.name, "a.ltoir");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct LinkInput<'a> {
    /// Shown in the linker's logs.
    pub name: &'a str,
    /// Its kind.
    pub kind: InputKind,
    /// Its bytes.
    pub bytes: &'a [u8],
}

/// What a link produces.
///
/// ```
/// assert_ne!(cuda_kernel_objects::nvjitlink::LinkOutput::Cubin, cuda_kernel_objects::nvjitlink::LinkOutput::Ptx);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkOutput {
    /// A cubin for the `-arch` given.
    Cubin,
    /// PTX text (only from LTO-IR inputs, with `-lto`).
    Ptx,
}

/// A finished link: the image and what the linker said.
#[derive(Clone, Debug)]
pub struct Linked {
    /// The cubin (or PTX text).
    pub image: Vec<u8>,
    /// The info log (`-verbose` output, register counts), possibly empty.
    pub info_log: String,
}

/// A link that failed: the nvJitLink call that failed, its result code and the error log.
///
/// ```
/// let f = cuda_kernel_objects::nvjitlink::LinkFailure {
///     call: "nvJitLinkComplete",
///     code: 4,
///     log: "undefined: f".into(),
/// };
/// assert_eq!(f.code_name(), "NVJITLINK_ERROR_PTX_COMPILE");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkFailure {
    /// The entry point that failed (`nvJitLinkComplete`).
    pub call: &'static str,
    /// The `nvJitLinkResult`.
    pub code: i32,
    /// The error log.
    pub log: String,
}

impl LinkFailure {
    /// The name of the result code (`NVJITLINK_ERROR_MISSING_ARCH`, ...).
    pub fn code_name(&self) -> &'static str {
        match self.code {
            1 => "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
            2 => "NVJITLINK_ERROR_MISSING_ARCH",
            3 => "NVJITLINK_ERROR_INVALID_INPUT",
            4 => "NVJITLINK_ERROR_PTX_COMPILE",
            5 => "NVJITLINK_ERROR_NVVM_COMPILE",
            6 => "NVJITLINK_ERROR_INTERNAL",
            7 => "NVJITLINK_ERROR_THREADPOOL",
            8 => "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
            9 => "NVJITLINK_ERROR_FINALIZE",
            10 => "NVJITLINK_ERROR_NULL_INPUT",
            11 => "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
            12 => "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
            13 => "NVJITLINK_ERROR_ARCH_MISMATCH",
            14 => "NVJITLINK_ERROR_OUTDATED_LIBRARY",
            15 => "NVJITLINK_ERROR_MISSING_FATBIN",
            16 => "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
            17 => "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
            18 => "NVJITLINK_ERROR_LTO_NOT_ENABLED",
            _ => "NVJITLINK_ERROR",
        }
    }
}

/// The library could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The file could not be loaded.
    #[error("cannot load nvJitLink `{}`: {detail}", .path.display())]
    Load {
        /// The file.
        path: PathBuf,
        /// The loader's message.
        detail: String,
    },
    /// A CUDA 13 entry point is missing.
    #[error("nvJitLink `{}` has no function `{name}`: a CUDA 13 release is needed", .path.display())]
    MissingFunction {
        /// The file.
        path: PathBuf,
        /// The function.
        name: String,
    },
}

/// The function `name` of `lib`, as `T`.
///
/// # Safety
/// `T` must be the function's real type; the value must not outlive `lib`.
unsafe fn sym<T: Copy>(lib: &Library, path: &Path, name: &str) -> Result<T, OpenError> {
    // SAFETY: the caller vouches for the type and keeps `lib` alive.
    unsafe { lib.function::<T>(name) }.map_err(|_| OpenError::MissingFunction {
        path: path.to_owned(),
        name: name.to_owned(),
    })
}

/// nvJitLink, loaded.
pub struct NvJitLink {
    _lib: Library,
    path: PathBuf,
    api: Api,
    version: (u32, u32),
}

impl std::fmt::Debug for NvJitLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NvJitLink")
            .field("path", &self.path)
            .field("version", &self.version)
            .finish()
    }
}

impl NvJitLink {
    /// Loads the library at `path` (a file name alone is searched where the system loader
    /// searches) and reads its release.
    ///
    /// ```no_run
    /// let jit = cuda_kernel_objects::nvjitlink::NvJitLink::open("libnvJitLink.so.13".as_ref())?;
    /// assert!(jit.version() >= (13, 0));
    /// # Ok::<(), cuda_kernel_objects::nvjitlink::OpenError>(())
    /// ```
    pub fn open(path: &Path) -> Result<NvJitLink, OpenError> {
        let lib = Library::open("nvJitLink", &[path]).map_err(|e| OpenError::Load {
            path: path.to_owned(),
            detail: e.detail().to_owned(),
        })?;
        let f = |n: &str| format!("__nvJitLink{n}_13_0");
        // SAFETY: each type is the prototype nvJitLink.h (CUDA 13.0) declares for that name.
        let (api, version_fn) = unsafe {
            let api = Api {
                create: sym(&lib, path, &f("Create"))?,
                destroy: sym(&lib, path, &f("Destroy"))?,
                add_data: sym(&lib, path, &f("AddData"))?,
                complete: sym(&lib, path, &f("Complete"))?,
                cubin_size: sym(&lib, path, &f("GetLinkedCubinSize"))?,
                cubin: sym(&lib, path, &f("GetLinkedCubin"))?,
                ptx_size: sym(&lib, path, &f("GetLinkedPtxSize"))?,
                ptx: sym(&lib, path, &f("GetLinkedPtx"))?,
                error_log_size: sym(&lib, path, &f("GetErrorLogSize"))?,
                error_log: sym(&lib, path, &f("GetErrorLog"))?,
                info_log_size: sym(&lib, path, &f("GetInfoLogSize"))?,
                info_log: sym(&lib, path, &f("GetInfoLog"))?,
            };
            let version: unsafe extern "C" fn(*mut u32, *mut u32) -> c_int =
                sym(&lib, path, "nvJitLinkVersion")?;
            (api, version)
        };
        let mut v = (0u32, 0u32);
        // SAFETY: two valid out-pointers.
        let rc = unsafe { version_fn(&mut v.0, &mut v.1) };
        if rc != 0 {
            let failure = LinkFailure {
                call: "nvJitLinkVersion",
                code: rc,
                log: String::new(),
            };
            return Err(OpenError::Load {
                path: path.to_owned(),
                detail: format!(
                    "nvJitLinkVersion failed: {} (code {rc})",
                    failure.code_name()
                ),
            });
        }
        Ok(NvJitLink {
            _lib: lib,
            path: path.to_owned(),
            api,
            version: v,
        })
    }

    /// The file it was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The library's release, `(13, 0)`.
    pub fn version(&self) -> (u32, u32) {
        self.version
    }

    /// Links `inputs` with `options` (`-arch=sm_90`, `-lto`, `-O3` ...) into `output`.
    pub fn link(
        &self,
        options: &[String],
        inputs: &[LinkInput<'_>],
        output: LinkOutput,
    ) -> Result<Linked, LinkFailure> {
        let c_options: Vec<CString> = options
            .iter()
            .map(|o| CString::new(o.replace('\0', "")).unwrap_or_default())
            .collect();
        let pointers: Vec<*const c_char> = c_options.iter().map(|c| c.as_ptr()).collect();
        // nvJitLink keeps the input names until the handle is destroyed: declared before the
        // link, they are dropped after it.
        let names: Vec<CString> = inputs
            .iter()
            .map(|i| CString::new(i.name.replace('\0', "")).unwrap_or_default())
            .collect();
        // SAFETY: `pointers` holds NUL-terminated strings alive for the call.
        let link = unsafe { Link::create(self, &pointers) }?;
        for (input, name) in inputs.iter().zip(&names) {
            // SAFETY: the bytes and the name outlive the link.
            unsafe { link.add_data(input, name) }?;
        }
        link.complete()?;
        Ok(Linked {
            image: link.output(output)?,
            info_log: link.log(Log::Info),
        })
    }
}

/// One of a link's logs.
#[derive(Clone, Copy)]
enum Log {
    Error,
    Info,
}

/// One nvJitLink handle, destroyed when dropped; its calls are checked, a failure carrying the
/// error log.
struct Link<'a> {
    jit: &'a NvJitLink,
    handle: Handle,
}

impl Drop for Link<'_> {
    fn drop(&mut self) {
        if !self.handle.is_null() {
            // SAFETY: a handle from `nvJitLinkCreate`, destroyed once.
            let _ = unsafe { (self.jit.api.destroy)(&mut self.handle) };
        }
    }
}

impl<'a> Link<'a> {
    /// `nvJitLinkCreate` with `options`.
    ///
    /// # Safety
    /// Every pointer of `options` is a live NUL-terminated string.
    unsafe fn create(
        jit: &'a NvJitLink,
        options: &[*const c_char],
    ) -> Result<Link<'a>, LinkFailure> {
        let mut link = Link {
            jit,
            handle: std::ptr::null_mut(),
        };
        let count = u32::try_from(options.len()).unwrap_or(u32::MAX);
        // SAFETY: `options` holds `count` live strings (the caller's promise); one out-pointer.
        let rc = unsafe { (jit.api.create)(&mut link.handle, count, options.as_ptr()) };
        link.check("nvJitLinkCreate", rc)?;
        Ok(link)
    }

    /// `Ok` for `NVJITLINK_SUCCESS`, else the failure of `call` with the error log.
    fn check(&self, call: &'static str, code: c_int) -> Result<(), LinkFailure> {
        if code == 0 {
            Ok(())
        } else {
            Err(LinkFailure {
                call,
                code,
                log: self.log(Log::Error),
            })
        }
    }

    /// `nvJitLinkAddData` of `input`, named `name` in the logs.
    ///
    /// # Safety
    /// `input`'s bytes and `name` outlive the link.
    unsafe fn add_data(&self, input: &LinkInput<'_>, name: &CStr) -> Result<(), LinkFailure> {
        // SAFETY: a live handle; the bytes and the name outlive it (the caller's promise).
        let rc = unsafe {
            (self.jit.api.add_data)(
                self.handle,
                input.kind as c_int,
                input.bytes.as_ptr().cast(),
                input.bytes.len(),
                name.as_ptr(),
            )
        };
        self.check("nvJitLinkAddData", rc)
    }

    /// `nvJitLinkComplete`.
    fn complete(&self) -> Result<(), LinkFailure> {
        // SAFETY: a live handle.
        let rc = unsafe { (self.jit.api.complete)(self.handle) };
        self.check("nvJitLinkComplete", rc)
    }

    /// The linked image (`nvJitLinkGetLinkedCubin` or `nvJitLinkGetLinkedPtx`, after the size).
    fn output(&self, output: LinkOutput) -> Result<Vec<u8>, LinkFailure> {
        let api = &self.jit.api;
        let ((size_call, size_fn), (fill_call, fill_fn)) = match output {
            LinkOutput::Ptx => (
                ("nvJitLinkGetLinkedPtxSize", api.ptx_size),
                ("nvJitLinkGetLinkedPtx", api.ptx),
            ),
            LinkOutput::Cubin => (
                ("nvJitLinkGetLinkedCubinSize", api.cubin_size),
                ("nvJitLinkGetLinkedCubin", api.cubin),
            ),
        };
        let mut size = 0usize;
        // SAFETY: a live, completed handle and a valid out-pointer.
        self.check(size_call, unsafe { size_fn(self.handle, &mut size) })?;
        let mut image = vec![0u8; size];
        // SAFETY: `image` has the size the library reported.
        self.check(fill_call, unsafe {
            fill_fn(self.handle, image.as_mut_ptr().cast())
        })?;
        Ok(image)
    }

    /// One of the logs (`nvJitLinkGetErrorLog`, `nvJitLinkGetInfoLog`, after the size); empty
    /// when there is none or it cannot be read.
    fn log(&self, which: Log) -> String {
        if self.handle.is_null() {
            return String::new();
        }
        let api = &self.jit.api;
        let (size_fn, fill_fn) = match which {
            Log::Error => (api.error_log_size, api.error_log),
            Log::Info => (api.info_log_size, api.info_log),
        };
        let mut size = 0usize;
        // SAFETY: a live handle and a valid out-pointer.
        if unsafe { size_fn(self.handle, &mut size) } != 0 || size == 0 {
            return String::new();
        }
        let mut buf = vec![0u8; size + 1];
        // SAFETY: `buf` is larger than the size the library reported.
        if unsafe { fill_fn(self.handle, buf.as_mut_ptr().cast()) } != 0 {
            return String::new();
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).trim_end().to_owned()
    }
}

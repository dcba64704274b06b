//! A small safe wrapper over nvFatbin: the linked images of every target, assembled into
//! one fatbin the way nvcc's own `fatbinary` step would.

use super::library::{self, LibrarySpec, Opened};
use crate::env::Reporting;
use crate::error::LinkLibraryError;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::Path;

pub(super) const SPEC: LibrarySpec = LibrarySpec {
    name: "nvFatbin",
    files: &["libnvfatbin.so.13", "libnvfatbin.so"],
    env: Some(crate::env::Var::NVFATBIN),
    wheel: "nvidia-nvfatbin==13.0.*",
};

type Handle = *mut c_void;
type AddText = unsafe extern "C" fn(
    Handle,
    *const c_void,
    usize,
    *const c_char,
    *const c_char,
    *const c_char,
) -> c_int;

#[derive(Clone, Copy)]
struct Api {
    create: unsafe extern "C" fn(*mut Handle, *const *const c_char, usize) -> c_int,
    destroy: unsafe extern "C" fn(*mut Handle) -> c_int,
    add_cubin:
        unsafe extern "C" fn(Handle, *const c_void, usize, *const c_char, *const c_char) -> c_int,
    add_ptx: AddText,
    add_ltoir: AddText,
    size: unsafe extern "C" fn(Handle, *mut usize) -> c_int,
    get: unsafe extern "C" fn(Handle, *mut c_void) -> c_int,
    error_string: unsafe extern "C" fn(c_int) -> *const c_char,
}

/// One image to put in the fatbin. `arch` is the target without its prefix (`90`, `90a`).
pub(crate) enum FatbinPart<'a> {
    /// SASS for `sm_<arch>`.
    Cubin {
        arch: String,
        name: &'a str,
        bytes: &'a [u8],
    },
    /// PTX for `compute_<arch>`.
    Ptx {
        arch: String,
        name: &'a str,
        text: &'a [u8],
    },
    /// LTO-IR for `lto_<arch>`.
    #[allow(dead_code)] // builds embed SASS and PTX; LTO-IR is for libraries of device code
    LtoIr {
        arch: String,
        name: &'a str,
        bytes: &'a [u8],
    },
}

/// nvFatbin, loaded.
pub(crate) struct NvFatbin {
    _opened: Opened,
    api: Api,
    /// Options of `nvFatbinCreate` (the compression the module's nvcc flags chose).
    options: Vec<CString>,
}

impl NvFatbin {
    /// Loads nvFatbin from beside `nvcc` and checks that it is a CUDA 13 release (the
    /// fatbin layout the runtime and `cuda-kernel-inspect` read).
    pub(crate) fn load(
        nvcc: &Path,
        needed_for: &str,
        reporting: Reporting,
    ) -> Result<NvFatbin, LinkLibraryError> {
        let opened = library::open(&SPEC, nvcc, needed_for, reporting)?;
        // SAFETY: the prototype of nvFatbinVersion in nvFatbin.h.
        let version: unsafe extern "C" fn(*mut u32, *mut u32) -> c_int =
            unsafe { library::function(&opened, SPEC.name, "nvFatbinVersion")? };
        let mut v = (0u32, 0u32);
        // SAFETY: two valid out-pointers.
        if unsafe { version(&mut v.0, &mut v.1) } != 0 || v.0 < 13 {
            return Err(LinkLibraryError::Unusable {
                library: SPEC.name,
                path: opened.path.clone(),
                detail: format!(
                    "its release is {}.{}; a CUDA 13 release is needed (`{}`)",
                    v.0, v.1, SPEC.wheel
                ),
            });
        }
        // SAFETY: each type below is the prototype of nvFatbin.h (CUDA 13.0) for that name.
        let api = unsafe {
            Api {
                create: library::function(&opened, SPEC.name, "nvFatbinCreate")?,
                destroy: library::function(&opened, SPEC.name, "nvFatbinDestroy")?,
                add_cubin: library::function(&opened, SPEC.name, "nvFatbinAddCubin")?,
                add_ptx: library::function(&opened, SPEC.name, "nvFatbinAddPTX")?,
                add_ltoir: library::function(&opened, SPEC.name, "nvFatbinAddLTOIR")?,
                size: library::function(&opened, SPEC.name, "nvFatbinSize")?,
                get: library::function(&opened, SPEC.name, "nvFatbinGet")?,
                error_string: library::function(&opened, SPEC.name, "nvFatbinGetErrorString")?,
            }
        };
        Ok(NvFatbin {
            _opened: opened,
            api,
            options: Vec::new(),
        })
    }

    /// Assembles with the compression nvcc's `flags` choose (see
    /// [`crate::compile::compress::nvfatbin_options`]), so that a fatbin joined here stores
    /// its entries as nvcc would have.
    pub(crate) fn with_nvcc_flags(mut self, flags: &[String]) -> NvFatbin {
        self.options = crate::compile::compress::nvfatbin_options(flags)
            .into_iter()
            .filter_map(|o| CString::new(o).ok())
            .collect();
        self
    }

    /// Assembles `parts`, in order, into one fatbin.
    pub(crate) fn assemble(&self, parts: &[FatbinPart<'_>]) -> Result<Vec<u8>, LinkLibraryError> {
        let mut handle: Handle = std::ptr::null_mut();
        let options: Vec<*const c_char> = self.options.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: `options` holds `options.len()` pointers to NUL-terminated strings that
        // outlive the call (owned by `self`), and the out-pointer is valid.
        let rc = unsafe { (self.api.create)(&mut handle, options.as_ptr(), options.len()) };
        self.check("nvFatbinCreate", rc, "")?;
        let result = self.fill(handle, parts);
        // SAFETY: a handle from `create`, destroyed once.
        unsafe { (self.api.destroy)(&mut handle) };
        result
    }

    fn fill(&self, handle: Handle, parts: &[FatbinPart<'_>]) -> Result<Vec<u8>, LinkLibraryError> {
        let empty = c"";
        for part in parts {
            let (arch, name) = match part {
                FatbinPart::Cubin { arch, name, .. }
                | FatbinPart::Ptx { arch, name, .. }
                | FatbinPart::LtoIr { arch, name, .. } => (cstring(arch), cstring(name)),
            };
            // SAFETY: every pointer addresses memory alive for the call, with its length.
            let (call, rc) = unsafe {
                match part {
                    FatbinPart::Cubin { bytes, .. } => (
                        "nvFatbinAddCubin",
                        (self.api.add_cubin)(
                            handle,
                            bytes.as_ptr().cast(),
                            bytes.len(),
                            arch.as_ptr(),
                            name.as_ptr(),
                        ),
                    ),
                    FatbinPart::Ptx { text, .. } => (
                        "nvFatbinAddPTX",
                        (self.api.add_ptx)(
                            handle,
                            text.as_ptr().cast(),
                            text.len(),
                            arch.as_ptr(),
                            name.as_ptr(),
                            empty.as_ptr(),
                        ),
                    ),
                    FatbinPart::LtoIr { bytes, .. } => (
                        "nvFatbinAddLTOIR",
                        (self.api.add_ltoir)(
                            handle,
                            bytes.as_ptr().cast(),
                            bytes.len(),
                            arch.as_ptr(),
                            name.as_ptr(),
                            empty.as_ptr(),
                        ),
                    ),
                }
            };
            self.check(
                call,
                rc,
                &format!(
                    " (arch {}, {})",
                    arch.to_string_lossy(),
                    name.to_string_lossy()
                ),
            )?;
        }
        let mut size = 0usize;
        // SAFETY: a live handle and a valid out-pointer.
        let rc = unsafe { (self.api.size)(handle, &mut size) };
        self.check("nvFatbinSize", rc, "")?;
        let mut out = vec![0u8; size];
        // SAFETY: `out` has the size the library reported.
        let rc = unsafe { (self.api.get)(handle, out.as_mut_ptr().cast()) };
        self.check("nvFatbinGet", rc, "")?;
        Ok(out)
    }

    fn check(&self, call: &'static str, rc: c_int, what: &str) -> Result<(), LinkLibraryError> {
        if rc == 0 {
            return Ok(());
        }
        // SAFETY: the library returns a static NUL-terminated string for any code.
        let text = unsafe {
            let p = (self.api.error_string)(rc);
            if p.is_null() {
                String::new()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        Err(LinkLibraryError::Call {
            library: SPEC.name,
            call,
            detail: format!("{text} (code {rc}){what}"),
        })
    }
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

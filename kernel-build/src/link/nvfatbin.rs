//! A small safe wrapper over nvFatbin: the linked images of every target, assembled into
//! one fatbin the way nvcc's own `fatbinary` step would.
//!
//! nvFatbin's one checked layer: every entry point is resolved when the library is loaded (a
//! missing one is an error naming it, `library::function`), and each is called in one method
//! here that returns its result as `Ok` or [`LinkLibraryError::Call`] naming the call
//! (`Handle` for the calls on a handle, which is destroyed when it drops).

use super::library::{self, NVFATBIN as SPEC, Opened};
use crate::env::Reporting;
use crate::error::LinkLibraryError;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::Path;

type RawHandle = *mut c_void;
type AddText = unsafe extern "C" fn(
    RawHandle,
    *const c_void,
    usize,
    *const c_char,
    *const c_char,
    *const c_char,
) -> c_int;

#[derive(Clone, Copy)]
struct Api {
    create: unsafe extern "C" fn(*mut RawHandle, *const *const c_char, usize) -> c_int,
    destroy: unsafe extern "C" fn(*mut RawHandle) -> c_int,
    add_cubin: unsafe extern "C" fn(
        RawHandle,
        *const c_void,
        usize,
        *const c_char,
        *const c_char,
    ) -> c_int,
    add_ptx: AddText,
    add_ltoir: AddText,
    size: unsafe extern "C" fn(RawHandle, *mut usize) -> c_int,
    get: unsafe extern "C" fn(RawHandle, *mut c_void) -> c_int,
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
        let rc = unsafe { version(&mut v.0, &mut v.1) };
        if rc != 0 {
            return Err(LinkLibraryError::Call {
                library: SPEC.name,
                call: "nvFatbinVersion",
                detail: format!("code {rc}"),
            });
        }
        if v.0 < 13 {
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
        let options: Vec<*const c_char> = self.options.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: the options are NUL-terminated strings owned by `self`.
        let handle = unsafe { Handle::create(self, &options) }?;
        for part in parts {
            handle.add(part)?;
        }
        handle.output()
    }

    /// `Ok` for `NVFATBIN_SUCCESS`, else the failure of `call`, with nvFatbin's description
    /// of the code (`nvFatbinGetErrorString`) and `what` it was given.
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

/// One nvFatbin handle, destroyed when dropped.
struct Handle<'a> {
    fatbin: &'a NvFatbin,
    raw: RawHandle,
}

impl Drop for Handle<'_> {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            // SAFETY: a handle from `nvFatbinCreate`, destroyed once.
            let _ = unsafe { (self.fatbin.api.destroy)(&mut self.raw) };
        }
    }
}

impl<'a> Handle<'a> {
    /// `nvFatbinCreate` with `options`.
    ///
    /// # Safety
    /// Every pointer of `options` is a live NUL-terminated string.
    unsafe fn create(
        fatbin: &'a NvFatbin,
        options: &[*const c_char],
    ) -> Result<Handle<'a>, LinkLibraryError> {
        let mut handle = Handle {
            fatbin,
            raw: std::ptr::null_mut(),
        };
        // SAFETY: `options` holds `options.len()` live strings (the caller's promise), and
        // the out-pointer is valid.
        let rc = unsafe { (fatbin.api.create)(&mut handle.raw, options.as_ptr(), options.len()) };
        fatbin.check("nvFatbinCreate", rc, "")?;
        Ok(handle)
    }

    /// Adds `part`: `nvFatbinAddCubin`, `nvFatbinAddPTX` or `nvFatbinAddLTOIR`.
    fn add(&self, part: &FatbinPart<'_>) -> Result<(), LinkLibraryError> {
        let api = &self.fatbin.api;
        let empty = c"";
        let (arch, name) = match part {
            FatbinPart::Cubin { arch, name, .. }
            | FatbinPart::Ptx { arch, name, .. }
            | FatbinPart::LtoIr { arch, name, .. } => (cstring(arch), cstring(name)),
        };
        // SAFETY: a live handle; every pointer addresses memory alive for the call, with its
        // length.
        let (call, rc) = unsafe {
            match part {
                FatbinPart::Cubin { bytes, .. } => (
                    "nvFatbinAddCubin",
                    (api.add_cubin)(
                        self.raw,
                        bytes.as_ptr().cast(),
                        bytes.len(),
                        arch.as_ptr(),
                        name.as_ptr(),
                    ),
                ),
                FatbinPart::Ptx { text, .. } => (
                    "nvFatbinAddPTX",
                    (api.add_ptx)(
                        self.raw,
                        text.as_ptr().cast(),
                        text.len(),
                        arch.as_ptr(),
                        name.as_ptr(),
                        empty.as_ptr(),
                    ),
                ),
                FatbinPart::LtoIr { bytes, .. } => (
                    "nvFatbinAddLTOIR",
                    (api.add_ltoir)(
                        self.raw,
                        bytes.as_ptr().cast(),
                        bytes.len(),
                        arch.as_ptr(),
                        name.as_ptr(),
                        empty.as_ptr(),
                    ),
                ),
            }
        };
        self.fatbin.check(
            call,
            rc,
            &format!(
                " (arch {}, {})",
                arch.to_string_lossy(),
                name.to_string_lossy()
            ),
        )
    }

    /// The fatbin (`nvFatbinSize`, then `nvFatbinGet`).
    fn output(&self) -> Result<Vec<u8>, LinkLibraryError> {
        let api = &self.fatbin.api;
        let mut size = 0usize;
        // SAFETY: a live handle and a valid out-pointer.
        let rc = unsafe { (api.size)(self.raw, &mut size) };
        self.fatbin.check("nvFatbinSize", rc, "")?;
        let mut out = vec![0u8; size];
        // SAFETY: `out` has the size the library reported.
        let rc = unsafe { (api.get)(self.raw, out.as_mut_ptr().cast()) };
        self.fatbin.check("nvFatbinGet", rc, "")?;
        Ok(out)
    }
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

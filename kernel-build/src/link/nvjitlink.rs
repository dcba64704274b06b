//! A small safe wrapper over nvJitLink: one link of several inputs for one target, with its
//! logs. Handles are never shared, so links of different targets run on different threads.

use super::library::{self, LibrarySpec, LinkLibraryError, Opened};
use crate::env::Reporting;
use std::ffi::{CString, c_char, c_int, c_void};
use std::path::Path;

const SPEC: LibrarySpec = LibrarySpec {
    name: "nvJitLink",
    files: &["libnvJitLink.so.13", "libnvJitLink.so"],
    env: "KERNEL_BUILD_NVJITLINK",
    wheel: "nvidia-nvjitlink==13.0.*",
};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(dead_code)] // every kind of the API, though builds add fatbins only
pub(crate) enum InputKind {
    Cubin = 1,
    Ptx = 2,
    LtoIr = 3,
    Fatbin = 4,
}

/// One input: a name for the logs (the `.cu` file), its kind and bytes.
pub(crate) struct LinkInput<'a> {
    pub name: &'a str,
    pub kind: InputKind,
    pub bytes: &'a [u8],
}

/// A finished link: the image and what the linker said.
pub(crate) struct Linked {
    pub image: Vec<u8>,
    pub info_log: String,
}

/// A link that failed: the result code and the error log.
#[derive(Debug)]
pub(crate) struct LinkFailure {
    pub code: c_int,
    pub log: String,
}

/// nvJitLink, loaded.
pub(crate) struct NvJitLink {
    _opened: Opened,
    api: Api,
    version: (u32, u32),
}

impl NvJitLink {
    /// Loads nvJitLink from beside `nvcc` and checks it can link what that nvcc emits
    /// (its release must not be older than nvcc's).
    pub(crate) fn load(
        nvcc: &Path,
        nvcc_version: (u32, u32),
        needed_for: &str,
        reporting: Reporting,
    ) -> Result<NvJitLink, LinkLibraryError> {
        let opened = library::open(&SPEC, nvcc, needed_for, reporting)?;
        // SAFETY: each type below is the prototype of nvJitLink.h (CUDA 13.0) for that name.
        let (api, version_fn) = unsafe {
            let f = |n: &str| format!("__nvJitLink{n}_13_0");
            let api = Api {
                create: library::function(&opened, SPEC.name, &f("Create"))?,
                destroy: library::function(&opened, SPEC.name, &f("Destroy"))?,
                add_data: library::function(&opened, SPEC.name, &f("AddData"))?,
                complete: library::function(&opened, SPEC.name, &f("Complete"))?,
                cubin_size: library::function(&opened, SPEC.name, &f("GetLinkedCubinSize"))?,
                cubin: library::function(&opened, SPEC.name, &f("GetLinkedCubin"))?,
                ptx_size: library::function(&opened, SPEC.name, &f("GetLinkedPtxSize"))?,
                ptx: library::function(&opened, SPEC.name, &f("GetLinkedPtx"))?,
                error_log_size: library::function(&opened, SPEC.name, &f("GetErrorLogSize"))?,
                error_log: library::function(&opened, SPEC.name, &f("GetErrorLog"))?,
                info_log_size: library::function(&opened, SPEC.name, &f("GetInfoLogSize"))?,
                info_log: library::function(&opened, SPEC.name, &f("GetInfoLog"))?,
            };
            let version: unsafe extern "C" fn(*mut u32, *mut u32) -> c_int =
                library::function(&opened, SPEC.name, "nvJitLinkVersion")?;
            (api, version)
        };
        let mut v = (0u32, 0u32);
        // SAFETY: two valid out-pointers.
        let rc = unsafe { version_fn(&mut v.0, &mut v.1) };
        if rc != 0 || v < nvcc_version {
            return Err(LinkLibraryError::Unusable {
                library: SPEC.name,
                path: opened.path.clone(),
                detail: format!(
                    "its release is {}.{}, older than nvcc {}.{}, whose output it must link; \
                     install `nvidia-nvjitlink=={}.{}.*`",
                    v.0, v.1, nvcc_version.0, nvcc_version.1, nvcc_version.0, nvcc_version.1
                ),
            });
        }
        Ok(NvJitLink {
            _opened: opened,
            api,
            version: v,
        })
    }

    /// The library's release, `(13, 0)`.
    pub(crate) fn version(&self) -> (u32, u32) {
        self.version
    }

    /// Links `inputs` with `options` (`-arch=sm_90`, `-lto`, `-ptx` ...) into a cubin, or
    /// PTX text when `ptx` is set (which needs `-lto`).
    pub(crate) fn link(
        &self,
        options: &[String],
        inputs: &[LinkInput<'_>],
        ptx: bool,
    ) -> Result<Linked, LinkFailure> {
        let c_options: Vec<CString> = options
            .iter()
            .map(|o| CString::new(o.as_str()).unwrap_or_default())
            .collect();
        let pointers: Vec<*const c_char> = c_options.iter().map(|c| c.as_ptr()).collect();
        // nvJitLink keeps the input names until the handle is destroyed.
        let names: Vec<CString> = inputs
            .iter()
            .map(|i| CString::new(i.name.replace('\0', "")).unwrap_or_default())
            .collect();
        let mut handle: Handle = std::ptr::null_mut();
        let count = u32::try_from(pointers.len()).unwrap_or(u32::MAX);
        // SAFETY: `pointers` holds `count` NUL-terminated strings alive for the call.
        let rc = unsafe { (self.api.create)(&mut handle, count, pointers.as_ptr()) };
        if rc != 0 {
            let log = self.read(handle, self.api.error_log_size, self.api.error_log);
            self.destroy(handle);
            return Err(LinkFailure { code: rc, log });
        }
        let result = self.add_and_complete(handle, inputs, &names, ptx);
        self.destroy(handle);
        result
    }

    fn add_and_complete(
        &self,
        handle: Handle,
        inputs: &[LinkInput<'_>],
        names: &[CString],
        ptx: bool,
    ) -> Result<Linked, LinkFailure> {
        let fail = |code| LinkFailure {
            code,
            log: self.read(handle, self.api.error_log_size, self.api.error_log),
        };
        for (input, name) in inputs.iter().zip(names) {
            // SAFETY: the bytes and the name outlive the handle (destroyed by our caller
            // after this returns).
            let rc = unsafe {
                (self.api.add_data)(
                    handle,
                    input.kind as c_int,
                    input.bytes.as_ptr().cast(),
                    input.bytes.len(),
                    name.as_ptr(),
                )
            };
            if rc != 0 {
                return Err(fail(rc));
            }
        }
        // SAFETY: a live handle.
        let rc = unsafe { (self.api.complete)(handle) };
        if rc != 0 {
            return Err(fail(rc));
        }
        let (size_fn, fill_fn) = if ptx {
            (self.api.ptx_size, self.api.ptx)
        } else {
            (self.api.cubin_size, self.api.cubin)
        };
        let mut size = 0usize;
        // SAFETY: a live, completed handle and a valid out-pointer.
        let rc = unsafe { size_fn(handle, &mut size) };
        if rc != 0 {
            return Err(fail(rc));
        }
        let mut image = vec![0u8; size];
        // SAFETY: `image` has the size the library reported.
        let rc = unsafe { fill_fn(handle, image.as_mut_ptr().cast()) };
        if rc != 0 {
            return Err(fail(rc));
        }
        Ok(Linked {
            image,
            info_log: self.read(handle, self.api.info_log_size, self.api.info_log),
        })
    }

    /// Reads one of the handle's logs.
    fn read(&self, handle: Handle, size_fn: SizeFn, fill_fn: FillFn) -> String {
        if handle.is_null() {
            return String::new();
        }
        let mut size = 0usize;
        // SAFETY: a live handle and a valid out-pointer.
        if unsafe { size_fn(handle, &mut size) } != 0 || size == 0 {
            return String::new();
        }
        let mut buf = vec![0u8; size + 1];
        // SAFETY: `buf` is larger than the size the library reported.
        if unsafe { fill_fn(handle, buf.as_mut_ptr().cast()) } != 0 {
            return String::new();
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).trim_end().to_owned()
    }

    fn destroy(&self, mut handle: Handle) {
        if !handle.is_null() {
            // SAFETY: a handle from `create`, destroyed once.
            unsafe { (self.api.destroy)(&mut handle) };
        }
    }
}

//! NVRTC's one checked layer: loading a library `library` found by path (through
//! `cuda_kernel_objects::native`, kept loaded so that cudarc's open by name finds it), and
//! every raw NVRTC call of the runtime (cudarc's `nvrtc::sys` symbols, which cudarc loads on
//! first use), each made once here and its `nvrtcResult` turned into `Result<_, Failed>`
//! naming the call; a program is destroyed when its [`Program`] drops. The rest of the
//! folder calls only this file.

use std::ffi::{CStr, c_char};
use std::path::Path;

use cuda_kernel_objects::native::Library;
use cudarc::nvrtc::sys::{self, nvrtcProgram, nvrtcResult};

use crate::code::object_code::CodeKind;

/// A call that did not return `NVRTC_SUCCESS`: the entry point and its result.
#[derive(Clone, Copy, Debug)]
pub(super) struct Failed {
    /// The entry point (`nvrtcCompileProgram`).
    pub call: &'static str,
    /// What it returned.
    pub code: nvrtcResult,
}

impl Failed {
    /// NVRTC's name for the result (`NVRTC_ERROR_COMPILATION`).
    pub fn name(&self) -> String {
        name_of(self.code)
    }

    /// Whether the source or the options were refused (the log says why), rather than NVRTC
    /// failing.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self.code,
            nvrtcResult::NVRTC_ERROR_COMPILATION | nvrtcResult::NVRTC_ERROR_INVALID_OPTION
        )
    }
}

/// Loads `file` and the builtins beside it for the life of the process.
pub(super) fn preload(file: &Path) -> Result<(), String> {
    if !file.is_file() {
        return Err("no such file".to_owned());
    }
    let dir = file.parent().unwrap_or(Path::new("."));
    let builtins = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libnvrtc-builtins.so."))
        });
    if let Some(b) = builtins {
        // NVRTC's builtins library has no initialisers with preconditions. Kept loaded:
        // NVRTC opens it by its soname during compilations.
        Library::open("NVRTC's builtins", &[&b])
            .map_err(|e| e.detail().to_owned())?
            .keep_loaded();
    }
    // As above, for libnvrtc itself. Kept loaded: cudarc's open by soname then finds this one.
    Library::open("NVRTC", &[file])
        .map_err(|e| e.detail().to_owned())?
        .keep_loaded();
    Ok(())
}

fn check(call: &'static str, code: nvrtcResult) -> Result<(), Failed> {
    if code == nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(Failed { call, code })
    }
}

/// NVRTC's name for a result code.
fn name_of(r: nvrtcResult) -> String {
    // SAFETY: nvrtcGetErrorString returns a static string for any code.
    let p = unsafe { sys::nvrtcGetErrorString(r) };
    if p.is_null() {
        return format!("{r:?}");
    }
    // SAFETY: as above.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// `nvrtcVersion`: the library's release.
///
/// # Safety
/// NVRTC must be reachable (`library` found it), or cudarc panics on the first call.
pub(super) unsafe fn version() -> Result<(i32, i32), Failed> {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the caller vouches for the library; the out-pointers are valid.
    check("nvrtcVersion", unsafe {
        sys::nvrtcVersion(&mut major, &mut minor)
    })?;
    Ok((major, minor))
}

/// `nvrtcGetNumSupportedArchs` and `nvrtcGetSupportedArchs`: the targets it compiles for.
///
/// # Safety
/// As [`version`].
pub(super) unsafe fn supported_archs() -> Result<Vec<i32>, Failed> {
    let mut n = 0;
    // SAFETY: the caller vouches for the library; `n` is a valid out-pointer.
    check("nvrtcGetNumSupportedArchs", unsafe {
        sys::nvrtcGetNumSupportedArchs(&mut n)
    })?;
    let mut archs = vec![0; usize::try_from(n).unwrap_or(0)];
    // SAFETY: `archs` has room for the `n` entries NVRTC reported.
    check("nvrtcGetSupportedArchs", unsafe {
        sys::nvrtcGetSupportedArchs(archs.as_mut_ptr())
    })?;
    Ok(archs)
}

type SizeFn = unsafe fn(nvrtcProgram, *mut usize) -> nvrtcResult;
type FillFn = unsafe fn(nvrtcProgram, *mut c_char) -> nvrtcResult;

/// One NVRTC program, destroyed when dropped.
pub(super) struct Program(nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the handle came from a successful nvrtcCreateProgram and is destroyed once.
        let _ = unsafe { sys::nvrtcDestroyProgram(&mut self.0) };
    }
}

impl Program {
    /// `nvrtcCreateProgram` of `source`, named `name`, with the headers `texts` named
    /// `names`.
    ///
    /// # Safety
    /// NVRTC must be reachable; every pointer of `texts` and `names` must be a live
    /// NUL-terminated string, and both must have the same length.
    pub unsafe fn create(
        source: &CStr,
        name: &CStr,
        texts: &[*const c_char],
        names: &[*const c_char],
    ) -> Result<Program, Failed> {
        let mut program: nvrtcProgram = std::ptr::null_mut();
        // SAFETY: forwarded to the caller; the arrays hold `len` entries.
        check("nvrtcCreateProgram", unsafe {
            sys::nvrtcCreateProgram(
                &mut program,
                source.as_ptr(),
                name.as_ptr(),
                i32::try_from(texts.len()).unwrap_or(i32::MAX),
                texts.as_ptr(),
                names.as_ptr(),
            )
        })?;
        Ok(Program(program))
    }

    /// `nvrtcAddNameExpression`.
    pub fn add_name_expression(&self, expression: &CStr) -> Result<(), Failed> {
        // SAFETY: the program is live; the expression is NUL-terminated.
        check("nvrtcAddNameExpression", unsafe {
            sys::nvrtcAddNameExpression(self.0, expression.as_ptr())
        })
    }

    /// `nvrtcCompileProgram` with `options`.
    ///
    /// # Safety
    /// Every pointer of `options` must be a live NUL-terminated string.
    pub unsafe fn compile(&self, options: &[*const c_char]) -> Result<(), Failed> {
        // SAFETY: the program is live; the option array holds `len` live strings.
        check("nvrtcCompileProgram", unsafe {
            sys::nvrtcCompileProgram(
                self.0,
                i32::try_from(options.len()).unwrap_or(i32::MAX),
                options.as_ptr(),
            )
        })
    }

    /// `nvrtcGetLoweredName`: the symbol a name expression added before compiling became.
    pub fn lowered_name(&self, expression: &CStr) -> Result<Option<String>, Failed> {
        let mut lowered: *const c_char = std::ptr::null();
        // SAFETY: the program is live; NVRTC checks that the expression was added and the
        // program compiled.
        check("nvrtcGetLoweredName", unsafe {
            sys::nvrtcGetLoweredName(self.0, expression.as_ptr(), &mut lowered)
        })?;
        if lowered.is_null() {
            return Ok(None);
        }
        // SAFETY: NVRTC returns a NUL-terminated string owned by the live program.
        let s = unsafe { CStr::from_ptr(lowered) };
        Ok(Some(s.to_string_lossy().into_owned()))
    }

    /// The compiled code of `kind` (`nvrtcGetCUBIN`, `nvrtcGetLTOIR`, else `nvrtcGetPTX`,
    /// without the PTX text's NUL).
    pub fn output(&self, kind: CodeKind) -> Result<Vec<u8>, Failed> {
        let (size, fill, call): (SizeFn, FillFn, _) = match kind {
            CodeKind::Cubin => (sys::nvrtcGetCUBINSize, sys::nvrtcGetCUBIN, "nvrtcGetCUBIN"),
            CodeKind::LtoIr => (sys::nvrtcGetLTOIRSize, sys::nvrtcGetLTOIR, "nvrtcGetLTOIR"),
            _ => (sys::nvrtcGetPTXSize, sys::nvrtcGetPTX, "nvrtcGetPTX"),
        };
        let mut n = 0usize;
        // SAFETY: the program is live; NVRTC checks that it compiled; `n` is a valid
        // out-pointer.
        check(call, unsafe { size(self.0, &mut n) })?;
        let mut buf = vec![0u8; n];
        // SAFETY: `buf` has the `n` bytes NVRTC asked for.
        check(call, unsafe { fill(self.0, buf.as_mut_ptr().cast()) })?;
        if kind == CodeKind::Ptx {
            while buf.last() == Some(&0) {
                buf.pop();
            }
        }
        Ok(buf)
    }

    /// The program's log (trimmed; empty when NVRTC said nothing or could not say).
    pub fn log(&self) -> String {
        let mut n = 0usize;
        // SAFETY: the program is live; `n` is a valid out-pointer.
        if check("nvrtcGetProgramLogSize", unsafe {
            sys::nvrtcGetProgramLogSize(self.0, &mut n)
        })
        .is_err()
        {
            return String::new();
        }
        let mut buf = vec![0u8; n];
        // SAFETY: `buf` has the `n` bytes NVRTC asked for.
        if check("nvrtcGetProgramLog", unsafe {
            sys::nvrtcGetProgramLog(self.0, buf.as_mut_ptr().cast())
        })
        .is_err()
        {
            return String::new();
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).trim().to_owned()
    }
}

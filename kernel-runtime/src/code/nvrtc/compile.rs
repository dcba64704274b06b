//! One NVRTC compilation: create the program, add name expressions, compile, read the output,
//! the log and the lowered names, destroy the program.

use std::ffi::{CStr, CString, c_char};

use cudarc::nvrtc::sys::{self, nvrtcProgram, nvrtcResult};

use super::library::Nvrtc;
use crate::code::object_code::CodeKind;
use crate::error::Error;

/// What one compilation gave.
pub(crate) struct Output {
    /// The cubin, PTX text (without its NUL) or LTO-IR.
    pub code: Vec<u8>,
    /// Name expressions and the symbols they compiled to.
    pub symbols: Vec<(String, String)>,
}

/// The inputs of one compilation.
pub(crate) struct Input<'a> {
    pub name: &'a str,
    pub source: &'a str,
    pub headers: &'a [(String, String)],
    pub options: &'a [String],
    pub name_expressions: &'a [String],
    pub kind: CodeKind,
}

/// Destroys the program when dropped.
struct Handle(nvrtcProgram);

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the handle came from a successful nvrtcCreateProgram and is destroyed once.
        let _ = unsafe { sys::nvrtcDestroyProgram(&mut self.0) };
    }
}

/// Compiles `input`; NVRTC must be loaded (`Nvrtc::load`).
pub(crate) fn compile(input: &Input<'_>) -> Result<Output, Error> {
    let cstr = |what: &str, s: &str| {
        CString::new(s).map_err(|_| Error::Compile {
            program: input.name.to_owned(),
            log: format!("{what} holds a NUL byte"),
            options: input.options.to_vec(),
        })
    };
    let source = cstr("the source", input.source)?;
    let name = cstr("the program's name", input.name)?;
    let header_texts = input
        .headers
        .iter()
        .map(|(_, t)| cstr("a header", t))
        .collect::<Result<Vec<_>, _>>()?;
    let header_names = input
        .headers
        .iter()
        .map(|(n, _)| cstr("a header's name", n))
        .collect::<Result<Vec<_>, _>>()?;
    let texts: Vec<*const c_char> = header_texts.iter().map(|c| c.as_ptr()).collect();
    let names: Vec<*const c_char> = header_names.iter().map(|c| c.as_ptr()).collect();
    let mut program: nvrtcProgram = std::ptr::null_mut();
    // SAFETY: every pointer is a live NUL-terminated string; the arrays hold `len` entries.
    let r = unsafe {
        sys::nvrtcCreateProgram(
            &mut program,
            source.as_ptr(),
            name.as_ptr(),
            i32::try_from(texts.len()).unwrap_or(i32::MAX),
            texts.as_ptr(),
            names.as_ptr(),
        )
    };
    check("nvrtcCreateProgram", r)?;
    let handle = Handle(program);
    let exprs = input
        .name_expressions
        .iter()
        .map(|e| cstr("a name expression", e))
        .collect::<Result<Vec<_>, _>>()?;
    for e in &exprs {
        // SAFETY: the program is live; `e` is NUL-terminated.
        check("nvrtcAddNameExpression", unsafe {
            sys::nvrtcAddNameExpression(handle.0, e.as_ptr())
        })?;
    }
    let options = input
        .options
        .iter()
        .map(|o| cstr("an option", o))
        .collect::<Result<Vec<_>, _>>()?;
    let option_ptrs: Vec<*const c_char> = options.iter().map(|c| c.as_ptr()).collect();
    Nvrtc::count_compilation();
    // SAFETY: the program is live; the option array holds `len` live strings.
    let r = unsafe {
        sys::nvrtcCompileProgram(
            handle.0,
            i32::try_from(option_ptrs.len()).unwrap_or(i32::MAX),
            option_ptrs.as_ptr(),
        )
    };
    if r != nvrtcResult::NVRTC_SUCCESS {
        let log = log(&handle);
        return Err(match r {
            nvrtcResult::NVRTC_ERROR_COMPILATION | nvrtcResult::NVRTC_ERROR_INVALID_OPTION => {
                Error::Compile {
                    program: input.name.to_owned(),
                    log: if log.is_empty() { name_of(r) } else { log },
                    options: input.options.to_vec(),
                }
            }
            _ => Error::Nvrtc {
                call: "nvrtcCompileProgram",
                problem: if log.is_empty() {
                    name_of(r)
                } else {
                    format!("{}: {log}", name_of(r))
                },
            },
        });
    }
    let code = output(&handle, input.kind)?;
    let mut symbols = Vec::new();
    for (expr, c) in input.name_expressions.iter().zip(&exprs) {
        let mut lowered: *const c_char = std::ptr::null();
        // SAFETY: the program is live and compiled; `c` was added before compiling.
        check("nvrtcGetLoweredName", unsafe {
            sys::nvrtcGetLoweredName(handle.0, c.as_ptr(), &mut lowered)
        })?;
        if !lowered.is_null() {
            // SAFETY: NVRTC returns a NUL-terminated string owned by the live program.
            let s = unsafe { CStr::from_ptr(lowered) };
            symbols.push((expr.clone(), s.to_string_lossy().into_owned()));
        }
    }
    Ok(Output { code, symbols })
}

type SizeFn = unsafe fn(nvrtcProgram, *mut usize) -> nvrtcResult;
type FillFn = unsafe fn(nvrtcProgram, *mut c_char) -> nvrtcResult;

/// The compiled code of `kind`.
fn output(handle: &Handle, kind: CodeKind) -> Result<Vec<u8>, Error> {
    let (size, fill, call): (SizeFn, FillFn, _) = match kind {
        CodeKind::Cubin => (sys::nvrtcGetCUBINSize, sys::nvrtcGetCUBIN, "nvrtcGetCUBIN"),
        CodeKind::LtoIr => (sys::nvrtcGetLTOIRSize, sys::nvrtcGetLTOIR, "nvrtcGetLTOIR"),
        _ => (sys::nvrtcGetPTXSize, sys::nvrtcGetPTX, "nvrtcGetPTX"),
    };
    let mut n = 0usize;
    // SAFETY: the program is live and compiled; `n` is a valid out-pointer.
    check(call, unsafe { size(handle.0, &mut n) })?;
    let mut buf = vec![0u8; n];
    // SAFETY: `buf` has the `n` bytes NVRTC asked for.
    check(call, unsafe { fill(handle.0, buf.as_mut_ptr().cast()) })?;
    if kind == CodeKind::Ptx {
        while buf.last() == Some(&0) {
            buf.pop();
        }
    }
    Ok(buf)
}

/// The program's log (trimmed; empty when NVRTC said nothing).
fn log(handle: &Handle) -> String {
    let mut n = 0usize;
    // SAFETY: the program is live; `n` is a valid out-pointer.
    if unsafe { sys::nvrtcGetProgramLogSize(handle.0, &mut n) } != nvrtcResult::NVRTC_SUCCESS {
        return String::new();
    }
    let mut buf = vec![0u8; n];
    // SAFETY: `buf` has the `n` bytes NVRTC asked for.
    if unsafe { sys::nvrtcGetProgramLog(handle.0, buf.as_mut_ptr().cast()) }
        != nvrtcResult::NVRTC_SUCCESS
    {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).trim().to_owned()
}

fn check(call: &'static str, r: nvrtcResult) -> Result<(), Error> {
    if r == nvrtcResult::NVRTC_SUCCESS {
        return Ok(());
    }
    Err(Error::Nvrtc {
        call,
        problem: name_of(r),
    })
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

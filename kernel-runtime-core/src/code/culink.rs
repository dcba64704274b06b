//! The driver's own linker (`cuLinkCreate` … `cuLinkComplete`): the [`Linker`]'s path when
//! nvJitLink is not installed, for cubins, PTX, fatbins, host objects and libraries (not
//! LTO-IR). It links in a context, for that context's device.
//!
//! [`Linker`]: crate::Linker

use std::ffi::{CString, c_void};

use cudarc::driver::DriverError;
use cudarc::driver::sys::{self, CUjit_option as O, CUjitInputType as T};

use crate::code::link_options::LinkOptions;
use crate::code::object_code::{CodeKind, ObjectCode};
use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};

/// Room for each log.
const LOG_BYTES: usize = 16 << 10;

/// Links `inputs` in `gpu`'s context: the cubin and the info log.
pub(crate) fn link(
    gpu: &Gpu,
    inputs: &[ObjectCode],
    options: &LinkOptions,
) -> Result<(Vec<u8>, String), Error> {
    let arch = gpu.arch();
    if let Some(lto) = inputs.iter().find(|c| c.kind() == CodeKind::LtoIr) {
        return Err(Error::Link {
            arch,
            problem: format!(
                "`{}` is LTO-IR, which only nvJitLink links (the driver's linker does not)",
                lto.name()
            ),
            log: String::new(),
        });
    }
    gpu.context().bind_to_thread().call("cuCtxSetCurrent")?;
    let mut error_log = vec![0u8; LOG_BYTES];
    let mut info_log = vec![0u8; LOG_BYTES];
    let mut keys = vec![
        O::CU_JIT_ERROR_LOG_BUFFER,
        O::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        O::CU_JIT_INFO_LOG_BUFFER,
        O::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
    ];
    // Option values are pointer-sized: buffers as pointers, numbers in the pointer's bits.
    let mut values: Vec<*mut c_void> = vec![
        error_log.as_mut_ptr().cast(),
        LOG_BYTES as *mut c_void,
        info_log.as_mut_ptr().cast(),
        LOG_BYTES as *mut c_void,
    ];
    let mut number = |key: O, value: usize| {
        keys.push(key);
        values.push(value as *mut c_void);
    };
    if let Some(r) = options.max_registers {
        number(O::CU_JIT_MAX_REGISTERS, r as usize);
    }
    if let Some(o) = options.opt_level {
        number(O::CU_JIT_OPTIMIZATION_LEVEL, usize::from(o.min(4)));
    }
    if options.debug {
        number(O::CU_JIT_GENERATE_DEBUG_INFO, 1);
    }
    if options.lineinfo {
        number(O::CU_JIT_GENERATE_LINE_INFO, 1);
    }
    // SAFETY: `keys` and `values` hold as many entries as each other; the log buffers outlive
    // the link state (destroyed below, before they are dropped).
    let state = unsafe { driver::link::create(&mut keys, &mut values) }.call("cuLinkCreate")?;
    let result = add_and_complete(state, inputs, &arch, &error_log);
    // SAFETY: the state came from a successful cuLinkCreate and is destroyed once; the cubin
    // it owned was copied out before.
    let _ = unsafe { driver::link::destroy(state) };
    let cubin = result?;
    Ok((cubin, text(&info_log)))
}

/// Adds every input and completes the link; the cubin, copied out of the state.
fn add_and_complete(
    state: sys::CUlinkState,
    inputs: &[ObjectCode],
    arch: &str,
    error_log: &[u8],
) -> Result<Vec<u8>, Error> {
    let failed = |call: &str, e: sys::CUresult| Error::Link {
        arch: arch.to_owned(),
        problem: format!("{call} failed: {e:?}"),
        log: text(error_log),
    };
    for code in inputs {
        let kind = match code.kind() {
            CodeKind::Cubin => T::CU_JIT_INPUT_CUBIN,
            CodeKind::Ptx => T::CU_JIT_INPUT_PTX,
            CodeKind::Fatbin => T::CU_JIT_INPUT_FATBINARY,
            CodeKind::Object => T::CU_JIT_INPUT_OBJECT,
            CodeKind::Library => T::CU_JIT_INPUT_LIBRARY,
            // Refused before linking; kept an error rather than a panic.
            CodeKind::LtoIr => {
                return Err(failed(
                    "cuLinkAddData",
                    sys::CUresult::CUDA_ERROR_INVALID_SOURCE,
                ));
            }
        };
        // PTX must end with its NUL.
        let mut bytes = code.bytes().to_vec();
        if code.kind() == CodeKind::Ptx && bytes.last() != Some(&0) {
            bytes.push(0);
        }
        let name = CString::new(code.name().replace('\0', "")).unwrap_or_default();
        // SAFETY: a live state; the bytes and name are alive for the call (the driver copies
        // what it keeps); no per-input options.
        let added = unsafe { driver::link::add_data(state, kind, &mut bytes, &name) };
        if let Err(DriverError(r)) = added {
            return Err(failed("cuLinkAddData", r));
        }
    }
    // SAFETY: a live state.
    let (cubin, size): (*mut c_void, usize) = match unsafe { driver::link::complete(state) } {
        Ok((cubin, size)) if !cubin.is_null() => (cubin, size),
        Ok(_) => return Err(failed("cuLinkComplete", sys::CUresult::CUDA_SUCCESS)),
        Err(DriverError(r)) => return Err(failed("cuLinkComplete", r)),
    };
    // SAFETY: the driver reports `size` bytes at `cubin`, owned by the live state.
    Ok(unsafe { std::slice::from_raw_parts(cubin.cast::<u8>(), size) }.to_vec())
}

/// A NUL-terminated log as text.
fn text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).trim_end().to_owned()
}

//! One NVRTC compilation: create the program, add name expressions, compile, read the output,
//! the log and the lowered names, destroy the program.

use std::ffi::{CString, c_char};

use super::api::{Failed, Program};
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
    // SAFETY: NVRTC is loaded (the caller's promise); every pointer is a live NUL-terminated
    // string, and the two arrays have one entry per header.
    let program = unsafe { Program::create(&source, &name, &texts, &names) }.map_err(error)?;
    let exprs = input
        .name_expressions
        .iter()
        .map(|e| cstr("a name expression", e))
        .collect::<Result<Vec<_>, _>>()?;
    for e in &exprs {
        program.add_name_expression(e).map_err(error)?;
    }
    let options = input
        .options
        .iter()
        .map(|o| cstr("an option", o))
        .collect::<Result<Vec<_>, _>>()?;
    let option_ptrs: Vec<*const c_char> = options.iter().map(|c| c.as_ptr()).collect();
    Nvrtc::count_compilation();
    // SAFETY: the option array holds live NUL-terminated strings.
    if let Err(failed) = unsafe { program.compile(&option_ptrs) } {
        let log = program.log();
        return Err(if failed.is_refusal() {
            Error::Compile {
                program: input.name.to_owned(),
                log: if log.is_empty() { failed.name() } else { log },
                options: input.options.to_vec(),
            }
        } else {
            Error::Nvrtc {
                call: failed.call,
                problem: if log.is_empty() {
                    failed.name()
                } else {
                    format!("{}: {log}", failed.name())
                },
            }
        });
    }
    let code = program.output(input.kind).map_err(error)?;
    let mut symbols = Vec::new();
    for (expr, c) in input.name_expressions.iter().zip(&exprs) {
        if let Some(lowered) = program.lowered_name(c).map_err(error)? {
            symbols.push((expr.clone(), lowered));
        }
    }
    Ok(Output { code, symbols })
}

/// The runtime's error for a failed NVRTC call: the call and NVRTC's name for its result.
fn error(failed: Failed) -> Error {
    Error::Nvrtc {
        call: failed.call,
        problem: failed.name(),
    }
}

//! Conditional directives: the state of one `#if` group and the evaluation of its
//! conditions with the names known to the host pass.

use std::collections::HashMap;

use super::RawOutput;
use super::macros::Macro;
use crate::diagnostics::front as msg;
use crate::front::expr;
use crate::front::lexer::Token;

/// Names nvcc defines for the host pass (the one `nvcc -E` shows).
const PREDEFINED: &[(&str, i64)] = &[("__CUDACC__", 1), ("__NVCC__", 1), ("__cplusplus", 201703)];
/// Names known to be undefined in the host pass.
const KNOWN_UNDEFINED: &[&str] = &["__CUDA_ARCH__"];

/// One open `#if` group.
pub(super) struct Cond {
    /// Whether the enclosing region is active.
    pub(super) parent: bool,
    /// Whether some branch of this conditional was taken.
    pub(super) taken: bool,
    /// Whether the current branch is active.
    pub(super) active: bool,
}

/// Evaluates the condition of `#if`, `#ifdef` or `#ifndef` (`kind`); a name it cannot
/// decide from the file is noted in `out`.
pub(super) fn eval_cond(
    kind: &str,
    rest: &str,
    macros: &HashMap<String, Macro>,
    cuda_arch: Option<i64>,
    src: &str,
    tok: &Token,
    out: &mut RawOutput,
) -> bool {
    let expr_text = match kind {
        "ifdef" => format!("defined({})", rest.trim()),
        "ifndef" => format!("!defined({})", rest.trim()),
        _ => rest.trim().to_string(),
    };
    let mut unknown = false;
    let mut lookup = |name: &str, want_defined: bool| -> Option<i64> {
        if let Some((_, v)) = PREDEFINED.iter().find(|(n, _)| *n == name) {
            return Some(if want_defined { 1 } else { *v });
        }
        if let (Some(arch), "__CUDA_ARCH__") = (cuda_arch, name) {
            return Some(if want_defined { 1 } else { arch });
        }
        match macros.get(name) {
            Some(Macro::Object(body)) if !want_defined => {
                let text: Vec<&str> = body.iter().map(|t| t.text(src)).collect();
                Some(expr::eval_pp(&text.join(" "), &mut |_, _| None).unwrap_or(0))
            }
            Some(_) => Some(1),
            None => {
                if !KNOWN_UNDEFINED.contains(&name) && !macros.contains_key(name) {
                    unknown = true;
                }
                Some(0)
            }
        }
    };
    let value = expr::eval_pp(&expr_text, &mut lookup).unwrap_or_else(|| {
        unknown = true;
        1
    }) != 0;
    // Include guards (`#ifndef X` followed by `#define X`) are decided by the file itself.
    if unknown && kind != "ifndef" {
        out.notes
            .push(msg::note_raw_condition(tok.line, rest.trim(), value));
    }
    value
}

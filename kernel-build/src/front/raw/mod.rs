//! Reading a source without nvcc: a small subset of the preprocessor.
//!
//! Without nvcc the front end still reads the declarations. This pass handles what
//! can be decided from the file alone: `#if`/`#ifdef`/`#elif`/`#else`/`#endif`
//! with integer expressions and `defined`, and object-like `#define`s (expanded in
//! the token stream). What it cannot decide is recorded as a note: names defined
//! outside the file are taken as undefined, quoted `#include`s are not followed,
//! and function-like macros are not expanded (their uses are dropped).

mod conditions;
mod directive;
mod macros;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use super::lexer::{TokKind, Token, lex};
use crate::diagnostics::{Diagnostics, front as msg};
use crate::model::SourceLoc;
use conditions::{Cond, eval_cond};
use directive::split_word;
pub(crate) use directive::{split_ident, strip_comments};
use macros::{Macro, expand_token};

/// The tokens to parse after conditionals and object-like macros, plus notes.
#[derive(Debug, Default)]
pub struct RawOutput {
    /// Active tokens with macros expanded (expansions carry the use site's position).
    pub tokens: Vec<Token>,
    /// What could not be decided without nvcc.
    pub notes: Vec<String>,
}

/// Runs the raw pass over the tokens of `src` (`file` names it in diagnostics), as the device pass of one architecture sees the text: `__CUDA_ARCH__` is
/// `cuda_arch` (`900` for sm_90) instead of undefined.
pub fn expand_for(
    src: &str,
    tokens: &[Token],
    file: &str,
    cuda_arch: Option<i64>,
) -> Result<RawOutput, Diagnostics> {
    let mut macros: HashMap<String, Macro> = HashMap::new();
    let mut stack: Vec<Cond> = Vec::new();
    let mut out = RawOutput::default();
    let mut diags = Diagnostics::new();
    let mut noted_fn_macros: Vec<String> = Vec::new();
    // Parenthesis depth inside a function-like macro's arguments being dropped.
    let mut invocation: Option<u32> = None;
    let loc = |t: &Token| {
        Some(SourceLoc {
            file: file.to_string(),
            line: t.line,
            column: t.col,
        })
    };
    for tok in tokens {
        let active = stack.last().is_none_or(|c| c.active);
        if tok.kind != TokKind::Directive {
            if !active {
                continue;
            }
            // A function-like macro's use is dropped with its arguments (and noted).
            match (&mut invocation, tok.text(src)) {
                (Some(0), "(") | (Some(1..), "(") => {
                    invocation = invocation.map(|d| d + 1);
                    continue;
                }
                (Some(d @ 1..), ")") => {
                    *d -= 1;
                    if *d == 0 {
                        invocation = None;
                    }
                    continue;
                }
                (Some(1..), _) => continue,
                (Some(_), _) => invocation = None,
                (None, _) => {}
            }
            if let Some(Macro::Function) = macros.get(tok.text(src)) {
                invocation = Some(0);
                if !noted_fn_macros.iter().any(|n| n == tok.text(src)) {
                    noted_fn_macros.push(tok.text(src).to_string());
                    out.notes.push(format!(
                        "line {}: {}",
                        tok.line,
                        msg::raw_macro(tok.text(src)).message
                    ));
                }
                continue;
            }
            expand_token(src, tok, &macros, &mut out.tokens, 0, &mut Vec::new());
            continue;
        }
        let body = tok
            .text(src)
            .trim_start()
            .trim_start_matches('#')
            .trim_start();
        let (name, rest_raw) = split_word(body);
        // `rest_raw` is a suffix of the directive, so its offset in `src` is known.
        let rest_offset = tok.end - rest_raw.len();
        let rest = strip_comments(rest_raw);
        match name {
            "if" | "ifdef" | "ifndef" => {
                let value = if active {
                    eval_cond(name, &rest, &macros, cuda_arch, src, tok, &mut out)
                } else {
                    false
                };
                stack.push(Cond {
                    parent: active,
                    taken: value,
                    active: active && value,
                });
            }
            "elif" | "else" => {
                let Some(top) = stack.last() else {
                    diags.push(crate::diagnostics::front::directive_without_if(name).at(loc(tok)));
                    continue;
                };
                let (parent, taken) = (top.parent, top.taken);
                let value = if name == "else" {
                    true
                } else if parent && !taken {
                    eval_cond("if", &rest, &macros, cuda_arch, src, tok, &mut out)
                } else {
                    false
                };
                if let Some(top) = stack.last_mut() {
                    top.active = parent && !taken && value;
                    top.taken |= value;
                }
            }
            "endif" => {
                let closed = stack.pop();
                closed.map_or_else(
                    || {
                        diags.push(
                            crate::diagnostics::front::directive_without_if("endif").at(loc(tok)),
                        )
                    },
                    drop,
                );
            }
            "define" if active => {
                let (mname, after) = split_ident(rest_raw);
                if mname.is_empty() {
                    diags.push(
                        msg::expected("a macro name after `#define`", "nothing").at(loc(tok)),
                    );
                } else if after.starts_with('(') {
                    macros.insert(mname.to_string(), Macro::Function);
                } else {
                    // Lex the body in place so its tokens keep pointing into `src`.
                    let body_start =
                        rest_offset + (rest_raw.len() - rest_raw.trim_start().len()) + mname.len();
                    let body_text = src.get(body_start..tok.end).unwrap_or("");
                    let body = lex(body_text)
                        .tokens
                        .into_iter()
                        .map(|t| Token {
                            start: t.start + body_start,
                            end: t.end + body_start,
                            ..t
                        })
                        .collect();
                    macros.insert(mname.to_string(), Macro::Object(body));
                }
            }
            "undef" if active => {
                macros.remove(split_ident(rest.as_str()).0);
            }
            "include" if active && rest.trim_start().starts_with('"') => {
                out.notes.push(msg::note_raw_include(tok.line, rest.trim()));
            }
            // `#pragma pack` changes layouts: the parser follows it, as in a device view.
            "pragma" if active => out.tokens.push(*tok),
            _ => {}
        }
    }
    if let Some(_open) = stack.last() {
        let last = tokens.last().map(|t| t.line).unwrap_or(1);
        diags.push(
            crate::diagnostics::front::unterminated_if().at(Some(SourceLoc {
                file: file.to_string(),
                line: last,
                column: 1,
            })),
        );
    }
    diags.into_result().map(|()| out)
}

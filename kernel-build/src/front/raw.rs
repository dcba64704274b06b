//! Reading a source without nvcc: a small subset of the preprocessor.
//!
//! Without nvcc the front end still reads the declarations. This pass handles what
//! can be decided from the file alone: `#if`/`#ifdef`/`#elif`/`#else`/`#endif`
//! with integer expressions and `defined`, and object-like `#define`s (expanded in
//! the token stream). What it cannot decide is recorded as a note: names defined
//! outside the file are taken as undefined, quoted `#include`s are not followed,
//! and function-like macros are not expanded (their uses are dropped).

use std::collections::HashMap;

use super::expr;
use super::lexer::{TokKind, Token, lex};
use crate::diagnostics::{Diagnostic, Diagnostics, front as msg};
use crate::model::SourceLoc;

/// Names nvcc defines for the host pass (the one `nvcc -E` shows).
const PREDEFINED: &[(&str, i64)] = &[("__CUDACC__", 1), ("__NVCC__", 1), ("__cplusplus", 201703)];
/// Names known to be undefined in the host pass.
const KNOWN_UNDEFINED: &[&str] = &["__CUDA_ARCH__"];

enum Macro {
    Object(Vec<Token>),
    Function,
}

struct Cond {
    /// Whether the enclosing region is active.
    parent: bool,
    /// Whether some branch of this conditional was taken.
    taken: bool,
    /// Whether the current branch is active.
    active: bool,
}

/// The tokens to parse after conditionals and object-like macros, plus notes.
#[derive(Debug, Default)]
pub struct RawOutput {
    /// Active tokens with macros expanded (expansions carry the use site's position).
    pub tokens: Vec<Token>,
    /// What could not be decided without nvcc.
    pub notes: Vec<String>,
}

/// Runs the raw pass over the tokens of `src` (`file` names it in diagnostics).
///
/// ```
/// use kernel_build::front::{lexer::lex, raw::expand};
/// let src = "#define K extern \"C\" __global__\n#if 0\nK void no();\n#endif\nK void yes();";
/// let out = expand(src, &lex(src).tokens, "k.cu").unwrap();
/// let text: Vec<&str> = out.tokens.iter().map(|t| t.text(src)).collect();
/// assert_eq!(text, ["extern", "\"C\"", "__global__", "void", "yes", "(", ")", ";"]);
/// ```
pub fn expand(src: &str, tokens: &[Token], file: &str) -> Result<RawOutput, Diagnostics> {
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
                    eval_cond(name, &rest, &macros, src, tok, &mut out)
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
                    diags.push(Diagnostic::error(format!("`#{name}` without `#if`")).at(loc(tok)));
                    continue;
                };
                let (parent, taken) = (top.parent, top.taken);
                let value = if name == "else" {
                    true
                } else if parent && !taken {
                    eval_cond("if", &rest, &macros, src, tok, &mut out)
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
                    || diags.push(Diagnostic::error("`#endif` without `#if`").at(loc(tok))),
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
            _ => {}
        }
    }
    if let Some(_open) = stack.last() {
        let last = tokens.last().map(|t| t.line).unwrap_or(1);
        diags.push(
            Diagnostic::error("unterminated `#if`: missing `#endif`").at(Some(SourceLoc {
                file: file.to_string(),
                line: last,
                column: 1,
            })),
        );
    }
    diags.into_result().map(|()| out)
}

fn expand_token(
    src: &str,
    tok: &Token,
    macros: &HashMap<String, Macro>,
    out: &mut Vec<Token>,
    depth: usize,
    hide: &mut Vec<String>,
) {
    let text = tok.text(src);
    match macros.get(text) {
        Some(Macro::Object(body))
            if tok.kind == TokKind::Ident && depth < 32 && !hide.iter().any(|h| h == text) =>
        {
            hide.push(text.to_string());
            for b in body {
                let at_use = Token {
                    line: tok.line,
                    col: tok.col,
                    ..*b
                };
                expand_token(src, &at_use, macros, out, depth + 1, hide);
            }
            hide.pop();
        }
        _ => out.push(*tok),
    }
}

fn eval_cond(
    kind: &str,
    rest: &str,
    macros: &HashMap<String, Macro>,
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

fn split_word(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

fn split_ident(s: &str) -> (&str, &str) {
    split_word(s.trim_start())
}

fn strip_comments(s: &str) -> String {
    let lexed = lex(s);
    let mut out = String::new();
    let mut prev_end = None;
    for t in &lexed.tokens {
        if prev_end.is_some_and(|e| e != t.start) {
            out.push(' ');
        }
        out.push_str(t.text(s));
        prev_end = Some(t.end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> (Vec<String>, Vec<String>) {
        let out = expand(src, &lex(src).tokens, "k.cu").unwrap();
        (
            out.tokens.iter().map(|t| t.text(src).to_string()).collect(),
            out.notes,
        )
    }

    #[test]
    fn else_and_elif_branches() {
        let (t, notes) =
            run("#if 0\na\n#elif 1\nb\n#else\nc\n#endif\n#ifdef __CUDACC__\nd\n#endif");
        assert_eq!(t, ["b", "d"]);
        assert!(notes.is_empty());
    }

    #[test]
    fn cuda_arch_is_undefined_on_the_host_pass() {
        let (t, notes) = run("#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900\nk\n#endif");
        assert_eq!(t, ["k"]);
        assert!(notes.is_empty());
    }

    #[test]
    fn unknown_names_are_noted() {
        let (t, notes) = run("#if USE_FAST\nfast\n#else\nslow\n#endif");
        assert_eq!(t, ["slow"]);
        assert!(notes[0].starts_with("line 1: `#if USE_FAST`"));
    }

    #[test]
    fn recursive_macros_stop() {
        let (t, _) = run("#define A B\n#define B A\nA");
        assert_eq!(t, ["A"]);
    }

    #[test]
    fn function_macros_and_includes_are_noted() {
        let (_, notes) = run("#include \"u.h\"\n#include <cstdint>\n#define F(x) x\nF(1) F(2)");
        assert_eq!(notes.len(), 2);
        assert!(notes[1].contains("macro `F`"));
    }

    #[test]
    fn unbalanced_conditionals_are_errors_with_lines() {
        let src = "#endif\n#if 1\n";
        let err = expand(src, &lex(src).tokens, "k.cu").unwrap_err();
        assert_eq!(err.len(), 2);
        assert_eq!(err.iter().next().unwrap().loc.as_ref().unwrap().line, 1);
    }

    #[test]
    fn expansions_carry_the_use_site() {
        let src = "#define T float\n\n  T x;";
        let out = expand(src, &lex(src).tokens, "k.cu").unwrap();
        assert_eq!((out.tokens[0].line, out.tokens[0].col), (3, 3));
        assert_eq!(out.tokens[0].text(src), "float");
    }
}

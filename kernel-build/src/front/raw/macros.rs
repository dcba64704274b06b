//! Macros the raw pass knows: object-like ones with their bodies, expanded in the
//! token stream, and function-like ones, whose uses are dropped.

use std::collections::HashMap;

use crate::front::lexer::{TokKind, Token};

/// A `#define`d name.
pub(super) enum Macro {
    /// An object-like macro and its body's tokens.
    Object(Vec<Token>),
    /// A function-like macro (not expanded).
    Function,
}

/// Pushes `tok` to `out`, expanding object-like macros recursively; names in `hide`
/// (those being expanded) and expansions deeper than 32 stay as they are.
pub(super) fn expand_token(
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

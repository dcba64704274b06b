//! Pieces of a directive's text: its leading word, a macro name, and the text with
//! comments removed.

use crate::front::lexer::lex;

/// Splits the leading word (letters, digits, `_`) from the rest.
pub(crate) fn split_word(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Splits a name from the rest, after leading whitespace.
pub(crate) fn split_ident(s: &str) -> (&str, &str) {
    split_word(s.trim_start())
}

/// The tokens of `s` without its comments, separated by one space where they were apart.
pub(crate) fn strip_comments(s: &str) -> String {
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

//! The lexer's main loop: one token, comment or skipped byte at a time.

use super::cursor::{Cursor, is_ident_byte, lex_directive, lex_quoted, lex_raw_string};
use super::{Comment, LexError, Lexed, TokKind, Token};

/// Lexes `src`.
pub fn lex(src: &str) -> Lexed {
    let mut c = Cursor {
        b: src.as_bytes(),
        pos: 0,
        line: 1,
        line_start: 0,
    };
    let mut out = Lexed::default();
    while !c.at_end() {
        let ch = c.peek(0);
        let (line, col, start) = (c.line, c.col(), c.pos);
        let token = |kind, c: &Cursor<'_>| Token {
            kind,
            start,
            end: c.pos,
            line,
            col,
        };
        match ch {
            b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c' => c.bump(),
            b'\\' if c.peek(1) == b'\n' || (c.peek(1) == b'\r' && c.peek(2) == b'\n') => {
                c.bump();
                while c.peek(0) != b'\n' {
                    c.bump();
                }
                c.bump();
            }
            b'/' if c.peek(1) == b'/' => {
                while !c.at_end() && c.peek(0) != b'\n' {
                    c.bump();
                }
                let text = src.get(start + 2..c.pos).unwrap_or("").to_string();
                out.comments.push(Comment {
                    text,
                    line,
                    end_line: line,
                });
            }
            b'/' if c.peek(1) == b'*' => {
                c.bump();
                c.bump();
                while !c.at_comment_end() {
                    c.bump();
                }
                if c.at_end() {
                    out.errors.push(LexError {
                        what: "comment",
                        line,
                        col,
                    });
                    let text = src.get(start + 2..).unwrap_or("").to_string();
                    out.comments.push(Comment {
                        text,
                        line,
                        end_line: c.line,
                    });
                } else {
                    let text = src.get(start + 2..c.pos).unwrap_or("").to_string();
                    c.bump();
                    c.bump();
                    out.comments.push(Comment {
                        text,
                        line,
                        end_line: c.line,
                    });
                }
            }
            b'#' if c.at_line_start() => {
                lex_directive(&mut c);
                out.tokens.push(token(TokKind::Directive, &c));
            }
            b'"' | b'\'' => {
                let kind = if ch == b'"' {
                    TokKind::Str
                } else {
                    TokKind::Char
                };
                if !lex_quoted(&mut c, ch) {
                    let what = if ch == b'"' {
                        "string literal"
                    } else {
                        "character literal"
                    };
                    out.errors.push(LexError { what, line, col });
                }
                out.tokens.push(token(kind, &c));
            }
            b'R' if c.peek(1) == b'"' => {
                if !lex_raw_string(&mut c) {
                    out.errors.push(LexError {
                        what: "raw string literal",
                        line,
                        col,
                    });
                }
                out.tokens.push(token(TokKind::Str, &c));
            }
            _ if ch.is_ascii_digit() || (ch == b'.' && c.peek(1).is_ascii_digit()) => {
                // C++14 digit separators (`1'000'000`) belong to the number.
                while is_ident_byte(c.peek(0))
                    || c.peek(0) == b'.'
                    || (c.peek(0) == b'\'' && c.peek(1).is_ascii_alphanumeric())
                    || ((c.peek(0) == b'+' || c.peek(0) == b'-')
                        && matches!(c.b[c.pos - 1], b'e' | b'E' | b'p' | b'P'))
                {
                    c.bump();
                }
                out.tokens.push(token(TokKind::Number, &c));
            }
            _ if is_ident_byte(ch) => {
                while is_ident_byte(c.peek(0)) {
                    c.bump();
                }
                // An encoding prefix directly before a literal belongs to the literal.
                let quote = c.peek(0);
                if matches!(src.get(start..c.pos), Some("L" | "u" | "U" | "u8"))
                    && (quote == b'"' || quote == b'\'')
                {
                    lex_quoted(&mut c, quote);
                    let kind = if quote == b'"' {
                        TokKind::Str
                    } else {
                        TokKind::Char
                    };
                    out.tokens.push(token(kind, &c));
                } else {
                    out.tokens.push(token(TokKind::Ident, &c));
                }
            }
            b':' if c.peek(1) == b':' => {
                c.bump();
                c.bump();
                out.tokens.push(token(TokKind::Punct, &c));
            }
            b'.' if c.peek(1) == b'.' && c.peek(2) == b'.' => {
                c.bump();
                c.bump();
                c.bump();
                out.tokens.push(token(TokKind::Punct, &c));
            }
            _ if ch.is_ascii() => {
                c.bump();
                out.tokens.push(token(TokKind::Punct, &c));
            }
            _ => c.bump(),
        }
    }
    out
}

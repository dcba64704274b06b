//! Tokens of CUDA C text with byte offsets and line/column positions.
//!
//! The lexer keeps what the declaration parser needs: identifiers, numbers,
//! string and character literals, punctuation (one character each, except `::`
//! and `...`), and whole preprocessor directives as single tokens. Comments are
//! set aside with their lines (they become kernel docs). It works on bytes and
//! only slices the text at ASCII boundaries, so any input is safe.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    /// An identifier or keyword (`__global__`, `float`, `saxpy`).
    Ident,
    /// A number literal (`16`, `0x10u`, `1.5f`).
    Number,
    /// A string literal, quotes included.
    Str,
    /// A character literal, quotes included.
    Char,
    /// Punctuation: one character, or `::` / `...`.
    Punct,
    /// A preprocessor directive: the whole logical line from `#`.
    Directive,
}

/// One token: its kind, byte range and 1-based position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokKind,
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
    /// 1-based line of the first byte.
    pub line: u32,
    /// 1-based column (in bytes) of the first byte.
    pub col: u32,
}

impl Token {
    /// The token's text in `src`.
    pub fn text<'s>(&self, src: &'s str) -> &'s str {
        src.get(self.start..self.end).unwrap_or("")
    }
}

/// A comment with the lines it spans.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// The comment text without its markers.
    pub text: String,
    /// First line.
    pub line: u32,
    /// Last line.
    pub end_line: u32,
}

/// A lexing problem (an unterminated comment or literal) at a line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    /// `comment`, `string literal`, `character literal`.
    pub what: &'static str,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// The result of lexing: tokens, comments, and problems found on the way.
#[derive(Clone, Debug, Default)]
pub struct Lexed {
    /// Tokens in order.
    pub tokens: Vec<Token>,
    /// Comments in order.
    pub comments: Vec<Comment>,
    /// Unterminated comments or literals (the lexer recovers and continues).
    pub errors: Vec<LexError>,
}

struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
    line: u32,
    line_start: usize,
}

impl Cursor<'_> {
    fn peek(&self, ahead: usize) -> u8 {
        self.b.get(self.pos + ahead).copied().unwrap_or(0)
    }
    fn bump(&mut self) {
        if self.peek(0) == b'\n' {
            self.line += 1;
            self.line_start = self.pos + 1;
        }
        self.pos += 1;
    }
    fn col(&self) -> u32 {
        u32::try_from(self.pos - self.line_start + 1).unwrap_or(u32::MAX)
    }
    fn at_end(&self) -> bool {
        self.pos >= self.b.len()
    }
    /// At `*/` or at the end of the text.
    fn at_comment_end(&self) -> bool {
        self.at_end() || (self.peek(0) == b'*' && self.peek(1) == b'/')
    }
    /// True when only whitespace precedes the cursor on its line.
    fn at_line_start(&self) -> bool {
        self.b[self.line_start..self.pos]
            .iter()
            .all(|c| *c == b' ' || *c == b'\t')
    }
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// Lexes `src`.
///
/// ```
/// use kernel_build::front::lexer::{lex, TokKind};
/// let src = "/* doc */ extern \"C\" __global__ void k(float* x);";
/// let lexed = lex(src);
/// assert_eq!(lexed.comments[0].text.trim(), "doc");
/// let texts: Vec<&str> = lexed.tokens.iter().map(|t| t.text(src)).collect();
/// assert_eq!(texts[..4], ["extern", "\"C\"", "__global__", "void"]);
/// assert_eq!(lexed.tokens[1].kind, TokKind::Str);
/// ```
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
                while is_ident_byte(c.peek(0))
                    || c.peek(0) == b'.'
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

/// Consumes a directive up to the end of its logical line (comments inside are skipped).
fn lex_directive(c: &mut Cursor<'_>) {
    while !c.at_end() {
        match c.peek(0) {
            b'\n' => break,
            b'\\' if c.peek(1) == b'\n' => {
                c.bump();
                c.bump();
            }
            b'/' if c.peek(1) == b'*' => {
                c.bump();
                c.bump();
                while !c.at_comment_end() {
                    c.bump();
                }
                c.bump();
                c.bump();
            }
            b'/' if c.peek(1) == b'/' => {
                while !c.at_end() && c.peek(0) != b'\n' {
                    c.bump();
                }
            }
            _ => c.bump(),
        }
    }
    c.pos = c.pos.min(c.b.len());
}

/// Consumes a quoted literal; false when it is not closed on its line.
fn lex_quoted(c: &mut Cursor<'_>, quote: u8) -> bool {
    c.bump();
    while !c.at_end() {
        match c.peek(0) {
            b'\\' => {
                c.bump();
                if !c.at_end() {
                    c.bump();
                }
            }
            b'\n' => return false,
            q if q == quote => {
                c.bump();
                return true;
            }
            _ => c.bump(),
        }
    }
    false
}

/// Consumes `R"delim( ... )delim"`; false when it is not closed.
fn lex_raw_string(c: &mut Cursor<'_>) -> bool {
    c.bump();
    c.bump();
    let delim_start = c.pos;
    while !c.at_end() && c.peek(0) != b'(' && c.peek(0) != b'\n' && c.pos - delim_start < 16 {
        c.bump();
    }
    if c.peek(0) != b'(' {
        return false;
    }
    let mut close = vec![b')'];
    close.extend_from_slice(&c.b[delim_start..c.pos]);
    close.push(b'"');
    while !c.at_end() {
        if c.b[c.pos..].starts_with(&close) {
            for _ in 0..close.len() {
                c.bump();
            }
            return true;
        }
        c.bump();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<String> {
        lex(src)
            .tokens
            .iter()
            .map(|t| t.text(src).to_string())
            .collect()
    }

    #[test]
    fn positions_are_one_based() {
        let src = "int a;\n  float* b;";
        let l = lex(src);
        let b = l.tokens.iter().find(|t| t.text(src) == "b").unwrap();
        assert_eq!((b.line, b.col), (2, 10));
    }

    #[test]
    fn comments_and_strings_hide_keywords() {
        let src = "// __global__ void a();\n/* __global__ */ const char* s = \"__global__\"; char c = '\\'';";
        let t = texts(src);
        assert!(!t.iter().any(|x| x == "__global__"));
        assert_eq!(lex(src).comments.len(), 2);
    }

    #[test]
    fn directives_are_single_tokens_with_continuations() {
        let src = "#define K \\\n  extern \"C\"\nint x;\n  # 12 \"a.cu\" 2\n";
        let l = lex(src);
        assert_eq!(l.tokens[0].kind, TokKind::Directive);
        assert_eq!(l.tokens[0].text(src), "#define K \\\n  extern \"C\"");
        assert_eq!(texts(src)[1..4], ["int", "x", ";"]);
        assert_eq!(l.tokens[4].kind, TokKind::Directive);
        assert_eq!(l.tokens[4].line, 4);
    }

    #[test]
    fn hash_inside_a_line_is_punctuation() {
        let l = lex("a # b");
        assert!(l.tokens.iter().all(|t| t.kind != TokKind::Directive));
    }

    #[test]
    fn scope_and_ellipsis_are_one_token() {
        assert_eq!(
            texts("a::b(...)>>"),
            ["a", "::", "b", "(", "...", ")", ">", ">"]
        );
    }

    #[test]
    fn numbers_with_suffixes_and_exponents() {
        assert_eq!(texts("0x1Fu 1.5e-3f 2"), ["0x1Fu", "1.5e-3f", "2"]);
    }

    #[test]
    fn unterminated_things_are_reported_with_lines() {
        let l = lex("int a;\n/* open");
        assert_eq!(
            l.errors,
            [LexError {
                what: "comment",
                line: 2,
                col: 1
            }]
        );
        let l = lex("\n\n \"abc\nint");
        assert_eq!(l.errors[0].what, "string literal");
        assert_eq!((l.errors[0].line, l.errors[0].col), (3, 2));
    }

    #[test]
    fn raw_strings_and_non_ascii() {
        let src = "R\"x(a)\" )x\" é int";
        assert_eq!(texts(src), ["R\"x(a)\" )x\"", "é", "int"]);
    }
}

//! Tokens of CUDA C text with byte offsets and line/column positions.
//!
//! The lexer keeps what the declaration parser needs: identifiers, numbers,
//! string and character literals, punctuation (one character each, except `::`
//! and `...`), and whole preprocessor directives as single tokens. Comments are
//! set aside with their lines (they become kernel docs). It works on bytes and
//! only slices the text at ASCII boundaries, so any input is safe.

mod cursor;
mod scan;
#[cfg(test)]
mod tests;

pub use scan::lex;

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

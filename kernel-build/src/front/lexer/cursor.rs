//! The byte cursor the lexer moves, and the consumers of constructs longer than a
//! token's first byte: directives, quoted literals and raw string literals.

/// A position in the text, with the line it is on.
pub(super) struct Cursor<'a> {
    pub(super) b: &'a [u8],
    pub(super) pos: usize,
    pub(super) line: u32,
    pub(super) line_start: usize,
}

impl Cursor<'_> {
    pub(super) fn peek(&self, ahead: usize) -> u8 {
        self.b.get(self.pos + ahead).copied().unwrap_or(0)
    }
    pub(super) fn bump(&mut self) {
        if self.peek(0) == b'\n' {
            self.line += 1;
            self.line_start = self.pos + 1;
        }
        self.pos += 1;
    }
    pub(super) fn col(&self) -> u32 {
        u32::try_from(self.pos - self.line_start + 1).unwrap_or(u32::MAX)
    }
    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.b.len()
    }
    /// At `*/` or at the end of the text.
    pub(super) fn at_comment_end(&self) -> bool {
        self.at_end() || (self.peek(0) == b'*' && self.peek(1) == b'/')
    }
    /// True when only whitespace precedes the cursor on its line.
    pub(super) fn at_line_start(&self) -> bool {
        self.b[self.line_start..self.pos]
            .iter()
            .all(|c| *c == b' ' || *c == b'\t')
    }
}

/// A byte that continues an identifier (non-ASCII bytes included).
pub(super) fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// Consumes a directive up to the end of its logical line (comments inside are skipped).
pub(super) fn lex_directive(c: &mut Cursor<'_>) {
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
pub(super) fn lex_quoted(c: &mut Cursor<'_>, quote: u8) -> bool {
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
pub(super) fn lex_raw_string(c: &mut Cursor<'_>) -> bool {
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

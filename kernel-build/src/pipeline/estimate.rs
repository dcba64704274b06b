//! How much work a file gives nvcc, estimated before it runs: the tokens of the file, each
//! use of a macro defined in the file or in the user's headers it includes counted as the
//! tokens it expands to. Kernel libraries write their kernels through macros (candle's
//! `binary.cu` is 5 KB of macro uses that expand to hundreds of kernels), so the file's
//! bytes say little; its expanded tokens come close to the code the compiler sees.
//!
//! The queue orders the runs of a build by this estimate (longest first) and splits the
//! largest ones over idle cores ([`crate::compile::split`]). Between candle's larger files
//! the compile time per estimated token differed by up to four times: good enough to order
//! files, not to time them.

use std::collections::HashMap;

/// The estimated tokens of `text`, whose user headers (each with its text) are `headers`:
/// the file's own tokens, with every use of a macro (defined in `text` or `headers`)
/// counted as its expansion. Directives and the headers' own code count nothing.
pub(crate) fn tokens(text: &str, headers: &[(String, String)]) -> u64 {
    let mut macros: HashMap<&str, Vec<&str>> = HashMap::new();
    for (_, header) in headers {
        scan(header, &mut macros, None);
    }
    let mut code = Vec::new();
    scan(text, &mut macros, Some(&mut code));
    let mut sizes: HashMap<&str, u64> = HashMap::new();
    code.iter()
        .map(|t| expanded(t, &macros, &mut sizes, 0))
        .fold(0u64, u64::saturating_add)
}

/// Records the macros `text` defines; pushes its other tokens to `code` when given.
fn scan<'t>(
    text: &'t str,
    macros: &mut HashMap<&'t str, Vec<&'t str>>,
    mut code: Option<&mut Vec<&'t str>>,
) {
    let mut lexer = Lexer { text, at: 0 };
    let mut line_start = true;
    while let Some((token, newline)) = lexer.next() {
        line_start |= newline;
        if line_start && token == "#" {
            let directive = lexer.directive();
            if let Some((name, body)) = definition(directive) {
                macros.insert(name, body);
            }
            line_start = true;
            continue;
        }
        line_start = false;
        if let Some(code) = code.as_deref_mut() {
            code.push(token);
        }
    }
}

/// `NAME` and its body's tokens when `directive` (the text after `#`) is a `#define`.
fn definition(directive: &str) -> Option<(&str, Vec<&str>)> {
    let rest = directive.trim_start().strip_prefix("define")?;
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let (name, mut body) = rest.split_at(end);
    if name.is_empty() {
        return None;
    }
    if body.starts_with('(') {
        body = &body[body.find(')').map_or(body.len(), |i| i + 1)..];
    }
    let mut lexer = Lexer { text: body, at: 0 };
    let tokens = std::iter::from_fn(|| lexer.next().map(|(t, _)| t))
        .filter(|t| *t != "#" && *t != "##")
        .collect();
    Some((name, tokens))
}

/// The tokens `token` stands for: 1, or a macro's expansion (each macro sized once; a
/// macro met again inside its own expansion, or past 32 levels, counts 1).
fn expanded<'t>(
    token: &'t str,
    macros: &HashMap<&'t str, Vec<&'t str>>,
    sizes: &mut HashMap<&'t str, u64>,
    depth: usize,
) -> u64 {
    let Some(body) = macros.get(token) else {
        return 1;
    };
    if let Some(&n) = sizes.get(token) {
        return n;
    }
    if depth > 32 {
        return 1;
    }
    sizes.insert(token, 1);
    let n = body
        .iter()
        .map(|t| expanded(t, macros, sizes, depth + 1))
        .fold(0u64, u64::saturating_add)
        .max(1);
    sizes.insert(token, n);
    n
}

/// C tokens, roughly: identifiers and numbers, string and character literals, and every
/// other character on its own; comments and whitespace skipped.
struct Lexer<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Lexer<'t> {
    /// The next token, and whether a line ended before it.
    fn next(&mut self) -> Option<(&'t str, bool)> {
        let bytes = self.text.as_bytes();
        let mut newline = false;
        loop {
            match bytes.get(self.at)? {
                b'\n' => {
                    newline = true;
                    self.at += 1;
                }
                b'\\' if bytes.get(self.at + 1) == Some(&b'\n') => self.at += 2,
                c if c.is_ascii_whitespace() => self.at += 1,
                b'/' if bytes.get(self.at + 1) == Some(&b'/') => {
                    self.at = self.line_end(self.at);
                }
                b'/' if bytes.get(self.at + 1) == Some(&b'*') => {
                    self.at = self.text[self.at + 2..]
                        .find("*/")
                        .map_or(bytes.len(), |i| self.at + 2 + i + 2);
                }
                _ => break,
            }
        }
        let start = self.at;
        let c = bytes[start];
        self.at = if c.is_ascii_alphanumeric() || c == b'_' {
            // A number takes its dot and exponent with it (`1.5e3f`), a name stops at `.`.
            let number = c.is_ascii_digit();
            start
                + bytes[start..]
                    .iter()
                    .position(|b| {
                        !(b.is_ascii_alphanumeric() || *b == b'_' || (number && *b == b'.'))
                    })
                    .unwrap_or(bytes.len() - start)
        } else if c == b'"' || c == b'\'' {
            let mut i = start + 1;
            while i < bytes.len() && bytes[i] != c && bytes[i] != b'\n' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            (i + 1).min(bytes.len())
        } else if c == b'#' && bytes.get(start + 1) == Some(&b'#') {
            start + 2
        } else {
            start + self.text[start..].chars().next().map_or(1, char::len_utf8)
        };
        Some((&self.text[start..self.at], newline))
    }

    /// The rest of a directive's logical line (continuations joined by the caller's
    /// lexing of it), consumed.
    fn directive(&mut self) -> &'t str {
        let start = self.at;
        self.at = self.line_end(start);
        &self.text[start..self.at]
    }

    /// Where the logical line holding `from` ends (a backslash before the newline
    /// continues it).
    fn line_end(&self, from: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = from;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' if bytes.get(i + 1) == Some(&b'\n') => i += 2,
                b'\n' => return i,
                _ => i += 1,
            }
        }
        bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_code_counts_its_tokens() {
        assert_eq!(tokens("int x = 1;", &[]), 5);
        assert_eq!(tokens("v.x = 1.5e3f;", &[]), 6);
        assert_eq!(
            tokens("// a comment\n/* another */ f(\"a b\", 'c');", &[]),
            7
        );
        assert_eq!(tokens("", &[]), 0);
    }

    #[test]
    fn directives_count_nothing_and_macros_count_their_expansion() {
        let text = "#include <x.h>\n#define PAIR(a, b) a + b; a - b;\nPAIR(1, 2)\n";
        // The macro's name counts as its 8 body tokens, the rest of the use as written.
        assert_eq!(tokens(text, &[]), 8 + 5);
        let object = "#define N 4\nint a[N];";
        assert_eq!(tokens(object, &[]), 6);
    }

    #[test]
    fn a_header_macro_used_many_times_weighs_the_file() {
        let header = (
            "ops.cuh".to_owned(),
            "#define OP(name, T) \\\n  extern \"C\" __global__ void name(T* x) { x[0] = 1; }\nint unused_helper(int a) { return a; }\n".to_owned(),
        );
        let text = "#include \"ops.cuh\"\nOP(a, float)\nOP(b, int)\nOP(c, double)\n";
        let small = tokens(text, &[]);
        let big = tokens(text, std::slice::from_ref(&header));
        // Without the header each use is its 6 written tokens; with it, the name is the
        // body's 19. The header's own function is not the file's code.
        assert_eq!(small, 18);
        assert_eq!(big, 3 * (19 + 5));
    }

    #[test]
    fn nested_and_recursive_macros_end() {
        let text = "#define A B B\n#define B C C C\n#define C x\n#define SELF SELF + 1\nA SELF";
        // A = 2 B = 6 C = 6 tokens; SELF expands to itself counted once, plus `+ 1`.
        assert_eq!(tokens(text, &[]), 6 + 3);
    }

    #[test]
    fn continuations_strings_and_odd_text_do_not_break_it() {
        let text = "#define LONG \\\n  a \\\n  b\nLONG \"unterminated\n'\\''; ## é";
        assert!(tokens(text, &[]) > 0);
        assert_eq!(tokens("/* never closed", &[]), 0);
        assert_eq!(tokens("#define", &[]), 0);
    }
}

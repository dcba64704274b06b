//! A small PTX tokenizer: words (directives, identifiers, numbers), punctuation and strings,
//! with comments removed and line numbers kept for error messages.

use super::error::Error;

/// One token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok<'a> {
    /// A directive (`.entry`), identifier, register or number.
    Word(&'a str),
    /// A single punctuation character.
    Punct(char),
    /// A string literal, without its quotes.
    Str(&'a str),
}

/// A token and the 1-based line it starts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    pub(crate) tok: Tok<'a>,
    pub(crate) line: usize,
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '%')
}

/// Splits PTX text into tokens.
pub(crate) fn tokenize(text: &str) -> Result<Vec<Token<'_>>, Error> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let start_line = line;
        let len = if c == '\n' {
            line += 1;
            1
        } else if c.is_whitespace() {
            c.len_utf8()
        } else if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if let Some(comment) = rest.strip_prefix("/*") {
            let end = comment.find("*/").ok_or(Error::BadPtx {
                line,
                detail: "unterminated block comment".into(),
            })?;
            line += rest[..end + 2].matches('\n').count();
            end + 4
        } else if c == '"' {
            let body = &rest[1..];
            let end = string_end(body).ok_or(Error::BadPtx {
                line,
                detail: "unterminated string".into(),
            })?;
            line += body[..end].matches('\n').count();
            out.push(Token {
                tok: Tok::Str(&body[..end]),
                line: start_line,
            });
            end + 2
        } else if is_word(c) {
            let end = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
            out.push(Token {
                tok: Tok::Word(&rest[..end]),
                line,
            });
            end
        } else {
            out.push(Token {
                tok: Tok::Punct(c),
                line,
            });
            c.len_utf8()
        };
        rest = &rest[len..];
    }
    Ok(out)
}

/// Index of the closing quote of a string body, skipping backslash escapes.
fn string_end(body: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in body.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_punctuation_strings_and_lines() {
        let toks = tokenize(".param .align 8 .b8 p[24], // c\n/* a\nb */ \"x\\\"y\" %r1;").unwrap();
        let kinds: Vec<_> = toks.iter().map(|t| (t.tok, t.line)).collect();
        assert_eq!(
            kinds,
            [
                (Tok::Word(".param"), 1),
                (Tok::Word(".align"), 1),
                (Tok::Word("8"), 1),
                (Tok::Word(".b8"), 1),
                (Tok::Word("p"), 1),
                (Tok::Punct('['), 1),
                (Tok::Word("24"), 1),
                (Tok::Punct(']'), 1),
                (Tok::Punct(','), 1),
                (Tok::Str("x\\\"y"), 3),
                (Tok::Word("%r1"), 3),
                (Tok::Punct(';'), 3),
            ]
        );
    }

    #[test]
    fn unterminated_comment_and_string_are_errors() {
        assert!(tokenize("ret; /* open").is_err());
        assert!(
            tokenize("\n\"open")
                .unwrap_err()
                .to_string()
                .contains("line 2")
        );
    }
}

//! Diagnostics about an inline source (`cuda_module! { source = r#"..."#; }`) told at the
//! Rust file's line and column where the CUDA text sits, instead of at a line of the
//! literal's value.
//!
//! The macro knows where its string literal starts (file, line, column) and how the literal
//! is written; [`InlinePlace::from_literal`] turns that into where each line of the value
//! starts in the Rust file. [`InlinePlace::relocate`] then rewrites every message that
//! names the inline source (`<inline k>:4: error: expected a ";"`, nvcc's or this crate's)
//! to `src/main.rs:12:17: error: expected a ";"`, the column taken from the caret line nvcc
//! prints under the quoted source line, and keeps one copy of a diagnostic that several
//! targets' compiles repeat.

/// Where the lines of an inline source's value lie in the Rust file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlinePlace {
    /// The Rust file, as rustc names it in its own messages.
    pub file: String,
    /// For each line of the value (from the first): its Rust line and the Rust column
    /// (1-based) of its first character.
    pub starts: Vec<(usize, usize)>,
    /// The value's lines, to find the column a caret points at when nvcc quotes a line
    /// after macro expansion (`__global__` as `__attribute__((global))`).
    pub lines: Vec<String>,
}

impl InlinePlace {
    /// The place of a string literal written as `token` (its source text, quotes and all)
    /// whose value is `value`, starting at `line`:`column` (both 1-based) of `file`. `None`
    /// for a token that is not a string literal.
    pub fn from_literal(
        token: &str,
        value: &str,
        file: &str,
        line: usize,
        column: usize,
    ) -> Option<Self> {
        let (body, prefix, raw) = if let Some(rest) = token.strip_prefix('r') {
            let hashes = rest.len() - rest.trim_start_matches('#').len();
            let open = hashes + 2; // `r`, the hashes, `"`
            let close = hashes + 1;
            let body = token.get(open..token.len().checked_sub(close)?)?;
            (body, open, true)
        } else {
            (token.strip_prefix('"')?.strip_suffix('"')?, 1, false)
        };
        let mut starts = vec![(line, column + prefix)];
        let (mut l, mut c) = (line, column + prefix);
        let mut chars = body.chars().peekable();
        while let Some(ch) = chars.next() {
            match ch {
                '\n' => {
                    l += 1;
                    c = 1;
                    starts.push((l, c));
                }
                '\\' if !raw => {
                    c += 1;
                    match chars.next() {
                        // An escaped newline: the value starts its next line here.
                        Some('n') => {
                            c += 1;
                            starts.push((l, c));
                        }
                        // A line continuation: the newline and the next line's leading
                        // whitespace are not part of the value.
                        Some('\n') => {
                            l += 1;
                            c = 1;
                            while chars.next_if(|w| w.is_whitespace() && *w != '\n').is_some() {
                                c += 1;
                            }
                        }
                        Some('u') => {
                            c += 1;
                            for e in chars.by_ref() {
                                c += 1;
                                if e == '}' {
                                    break;
                                }
                            }
                        }
                        Some('x') => {
                            c += 1;
                            for _ in 0..2 {
                                if chars.next().is_some() {
                                    c += 1;
                                }
                            }
                        }
                        Some(_) => c += 1,
                        None => {}
                    }
                }
                _ => c += 1,
            }
        }
        Some(InlinePlace {
            file: file.to_owned(),
            starts,
            lines: value.split('\n').map(str::to_owned).collect(),
        })
    }

    /// The Rust line of the value's first line when each next line of the value is the
    /// file's next line (a raw string, or one without `\n` escapes and line
    /// continuations), so that a single `#line` directive can name them all.
    pub fn first_line_if_contiguous(&self) -> Option<usize> {
        let first = self.starts.first()?.0;
        let contiguous = self
            .starts
            .iter()
            .enumerate()
            .all(|(i, &(line, _))| line == first + i);
        contiguous.then_some(first)
    }

    /// Every location of `info` in the inline source named `display` told in the Rust file
    /// (so that generated docs say `src/main.rs:6:13`, not `<inline k>:2:1`).
    pub fn relocate_model(&self, info: &mut crate::model::ModuleInfo, display: &str) {
        info.for_each_location(|loc| {
            if loc.file != display {
                return;
            }
            if let Some((line, Some(column))) =
                self.position(loc.line as usize, Some(loc.column as usize))
            {
                loc.file = self.file.clone();
                loc.line = u32::try_from(line).unwrap_or(loc.line);
                loc.column = u32::try_from(column).unwrap_or(loc.column);
            }
        });
    }

    /// Where column `column` of line `line` of the value is in the Rust file.
    fn position(&self, line: usize, column: Option<usize>) -> Option<(usize, Option<usize>)> {
        let &(l, c) = self.starts.get(line.checked_sub(1)?)?;
        Some((l, column.map(|col| c + col - 1)))
    }

    /// `tokens` (`compile_error!`s, and whatever else) with every location in the inline
    /// source named `display` that their messages give told in the Rust file
    /// ([`relocate`](InlinePlace::relocate)); each literal keeps its span, so every error
    /// stays where it was.
    pub fn relocate_tokens(
        &self,
        tokens: proc_macro2::TokenStream,
        display: &str,
    ) -> proc_macro2::TokenStream {
        use proc_macro2::TokenTree;
        tokens
            .into_iter()
            .map(|tree| match tree {
                TokenTree::Group(g) => {
                    let stream = self.relocate_tokens(g.stream(), display);
                    let mut inner = proc_macro2::Group::new(g.delimiter(), stream);
                    inner.set_span(g.span());
                    TokenTree::Group(inner)
                }
                TokenTree::Literal(lit) => {
                    match syn::parse2::<syn::LitStr>(TokenTree::Literal(lit.clone()).into()) {
                        Ok(text) if text.value().contains(display) => {
                            let moved = self.relocate(&text.value(), display);
                            let mut moved = proc_macro2::Literal::string(&moved);
                            moved.set_span(lit.span());
                            TokenTree::Literal(moved)
                        }
                        _ => TokenTree::Literal(lit),
                    }
                }
                other => other,
            })
            .collect()
    }

    /// `text` with every location in the inline source named `display` (`<inline k>`)
    /// told in the Rust file, a column added from the caret line under a quoted source
    /// line, and repeated diagnostics (the same message at the same place, as each
    /// target's compile prints it) kept once.
    pub fn relocate(&self, text: &str, display: &str) -> String {
        let lines: Vec<&str> = text.split('\n').collect();
        let mut out: Vec<String> = Vec::with_capacity(lines.len());
        let mut seen: Vec<Vec<String>> = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let Some((head, rest)) = located(lines[i], display) else {
                out.push(self.mentions(lines[i], display));
                i += 1;
                continue;
            };
            // The diagnostic's block: its line, and the quoted source and caret lines below
            // it, up to a blank line or the next located line.
            let mut end = i + 1;
            while end < lines.len()
                && !lines[end].trim().is_empty()
                && located(lines[end], display).is_none()
            {
                end += 1;
            }
            let block = &lines[i + 1..end];
            let source = self
                .lines
                .get(head.line.wrapping_sub(1))
                .map(String::as_str);
            let caret = caret_column(block, source);
            let (line, column) = match head {
                Head {
                    line,
                    column: Some(c),
                } => (line, Some(c)),
                Head { line, column: None } => (line, caret),
            };
            let place = match self.position(line, column) {
                Some((l, Some(c))) => format!("{}:{l}:{c}", self.file),
                Some((l, None)) => format!("{}:{l}", self.file),
                None => format!("{}:{line}", self.file),
            };
            let mut copy = vec![format!("{place}:{rest}")];
            copy.extend(block.iter().map(|l| (*l).to_owned()));
            if !seen.contains(&copy) {
                seen.push(copy.clone());
                out.extend(copy);
            } else if end < lines.len() && lines[end].trim().is_empty() {
                // The repeat's blank separator goes with it.
                end += 1;
            }
            i = end;
        }
        out.join("\n")
    }
}

impl InlinePlace {
    /// `line` with every `<display>:LINE[:COL]` inside it (`(at <inline k>:2:5)`) told in the
    /// Rust file; a mention of `display` alone (the source as a whole) stays as it is.
    fn mentions(&self, line: &str, display: &str) -> String {
        let mut out = String::new();
        let mut rest = line;
        while let Some(at) = rest.find(display) {
            out.push_str(&rest[..at]);
            rest = &rest[at + display.len()..];
            let number = |s: &str| -> (Option<usize>, usize) {
                let Some(digits) = s.strip_prefix(':') else {
                    return (None, 0);
                };
                let n = digits.len()
                    - digits
                        .trim_start_matches(|c: char| c.is_ascii_digit())
                        .len();
                (digits[..n].parse().ok(), n + 1)
            };
            let (line_no, used) = number(rest);
            let Some(line_no) = line_no else {
                out.push_str(display);
                continue;
            };
            let (column, used_col) = number(&rest[used..]);
            rest = &rest[used + if column.is_some() { used_col } else { 0 }..];
            match self.position(line_no, column) {
                Some((l, Some(c))) => out.push_str(&format!("{}:{l}:{c}", self.file)),
                Some((l, None)) => out.push_str(&format!("{}:{l}", self.file)),
                None => out.push_str(&format!("{}:{line_no}", self.file)),
            }
        }
        out.push_str(rest);
        out
    }
}

/// A location at the start of a message line.
struct Head {
    line: usize,
    column: Option<usize>,
}

/// `<display>:LINE[:COL]:REST` → the location and `REST`.
fn located<'a>(line: &'a str, display: &str) -> Option<(Head, &'a str)> {
    let after = line.strip_prefix(display)?.strip_prefix(':')?;
    let (number, rest) = after.split_once(':')?;
    let line_no: usize = number.parse().ok()?;
    // `:COL:` follows when this crate's own messages give a column.
    if let Some((col, tail)) = rest.split_once(':')
        && let Ok(column) = col.parse::<usize>()
    {
        return Some((
            Head {
                line: line_no,
                column: Some(column),
            },
            tail,
        ));
    }
    Some((
        Head {
            line: line_no,
            column: None,
        },
        rest,
    ))
}

/// The 1-based column in the source line `source` that a caret line points at. nvcc quotes
/// the line (two spaces before it) above the caret, after macro expansion: when the quote is
/// not the line as written, the column is where the same occurrence of the word under the
/// caret is in the line as written (none when it is not there).
fn caret_column(block: &[&str], source: Option<&str>) -> Option<usize> {
    let caret = block
        .iter()
        .position(|l| l.trim() == "^" && l.ends_with('^'))?;
    let quoted = block.get(caret.checked_sub(1)?)?.strip_prefix("  ")?;
    let at = (block[caret].len() - 1).checked_sub(2)?;
    let source = source?;
    if quoted == source {
        return Some(at + 1);
    }
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let bytes = quoted.as_bytes();
    if at >= bytes.len() {
        return None;
    }
    let (start, end) = if word(bytes[at] as char) {
        let start = quoted[..at].rfind(|c: char| !word(c)).map_or(0, |i| i + 1);
        let end = quoted[at..]
            .find(|c: char| !word(c))
            .map_or(quoted.len(), |i| at + i);
        (start, end)
    } else {
        (at, at + 1)
    };
    let needle = quoted.get(start..end)?;
    let whole = |text: &str, i: usize| {
        let before = text[..i].chars().next_back().is_none_or(|c| !word(c));
        let after = text[i + needle.len()..]
            .chars()
            .next()
            .is_none_or(|c| !word(c));
        !word(needle.chars().next().unwrap_or(' ')) || (before && after)
    };
    let occurrence = quoted
        .match_indices(needle)
        .filter(|(i, _)| whole(quoted, *i))
        .position(|(i, _)| i == start)?;
    source
        .match_indices(needle)
        .filter(|(i, _)| whole(source, *i))
        .nth(occurrence)
        .map(|(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place() -> InlinePlace {
        // `source = r#"` at column 18 of line 4: the value starts at column 21.
        let value = "\n    extern \"C\" __global__ void fill(real_t* x, int n) {\n        int i = 0\n        if (i < n) x[i] = 0.0f;\n    }\n";
        InlinePlace::from_literal(&format!("r#\"{value}\"#"), value, "src/main.rs", 4, 18).unwrap()
    }

    #[test]
    fn lines_of_raw_and_escaped_literals() {
        assert_eq!(place().starts[..3], [(4, 21), (5, 1), (6, 1)]);
        // `"a\nb"` at column 5: `b` is on the same Rust line, after the escape.
        let p = InlinePlace::from_literal("\"a\\nb\"", "a\nb", "f.rs", 2, 5).unwrap();
        assert_eq!(p.starts, vec![(2, 6), (2, 9)]);
        // A continuation skips the next line's indentation.
        let p = InlinePlace::from_literal("\"a\\\n    b\\nc\"", "ab\nc", "f.rs", 1, 1).unwrap();
        assert_eq!(p.starts, vec![(1, 2), (2, 8)]);
        assert!(InlinePlace::from_literal("42", "", "f.rs", 1, 1).is_none());
    }

    #[test]
    fn nvcc_errors_name_the_rust_line_and_column_once() {
        let nvcc = "<inline k>:4: error: expected a \";\"\n          if (i < n) x[i] = 0.0f;\n          ^\n\n\
                    <inline k>:4: error: expected a \";\"\n          if (i < n) x[i] = 0.0f;\n          ^\n\n\
                    1 error detected in the compilation of \"<inline k>\".";
        let out = place().relocate(nvcc, "<inline k>");
        assert_eq!(
            out,
            "src/main.rs:7:9: error: expected a \";\"\n          if (i < n) x[i] = 0.0f;\n          ^\n\n\
             1 error detected in the compilation of \"<inline k>\"."
        );
    }

    #[test]
    fn a_caret_under_an_expanded_line_finds_the_word_as_written() {
        // nvcc quotes `__global__` expanded; the caret is under `real_t`, then under `x`.
        let quoted = "      extern \"C\" __attribute__((global)) void fill(real_t* x, int n) {";
        let at = |col: usize| format!("<inline k>:2: error: e\n{quoted}\n{}^", " ".repeat(col));
        let out = place().relocate(&at(2 + 49), "<inline k>");
        assert!(out.starts_with("src/main.rs:5:37: error"), "{out}");
        let out = place().relocate(&at(2 + 57), "<inline k>");
        assert!(out.starts_with("src/main.rs:5:45: error"), "{out}");
        // A word the line as written lacks (`__attribute__`): the line alone.
        let out = place().relocate(&at(2 + 20), "<inline k>");
        assert!(out.starts_with("src/main.rs:5: error"), "{out}");
    }

    #[test]
    fn a_raw_string_is_contiguous_and_an_escaped_newline_is_not() {
        let raw = InlinePlace::from_literal("r#\"\na\nb\"#", "\na\nb", "m.rs", 7, 14).unwrap();
        assert_eq!(raw.first_line_if_contiguous(), Some(7));
        let escaped = InlinePlace::from_literal("\"a\\nb\"", "a\nb", "m.rs", 7, 14).unwrap();
        assert_eq!(escaped.first_line_if_contiguous(), None);
        let continued =
            InlinePlace::from_literal("\"a\\\n   b\nc\"", "ab\nc", "m.rs", 7, 14).unwrap();
        assert_eq!(continued.first_line_if_contiguous(), None);
    }

    #[test]
    fn columns_given_are_kept_and_first_lines_are_shifted() {
        let p = place();
        assert_eq!(
            p.relocate("<inline k>:2:5: error: unknown type", "<inline k>"),
            "src/main.rs:5:5: error: unknown type"
        );
        assert_eq!(
            p.relocate("<inline k>:1:3: note: x", "<inline k>"),
            "src/main.rs:4:23: note: x"
        );
        // A location inside a message, as this crate's own diagnostics give it.
        assert_eq!(
            p.relocate("unknown type `T` (at <inline k>:3:9)", "<inline k>"),
            "unknown type `T` (at src/main.rs:6:9)"
        );
        // Another file's messages are left alone, and a warning without a caret keeps its line.
        assert_eq!(
            p.relocate("kernels/a.h:3: warning: w", "<inline k>"),
            "kernels/a.h:3: warning: w"
        );
        assert_eq!(
            p.relocate("<inline k>:3: warning #177-D: unused", "<inline k>"),
            "src/main.rs:6: warning #177-D: unused"
        );
    }

    #[test]
    fn a_raw_literal_starts_after_its_opening_quote() {
        let p = InlinePlace::from_literal("r#\"\n  int x;\"#", "\n  int x;", "src/main.rs", 10, 18)
            .unwrap();
        assert_eq!(p.starts, vec![(10, 21), (11, 1)]);
    }

    #[test]
    fn model_locations_are_moved_into_the_rust_file() {
        use crate::model::{ModuleInfo, SourceLoc, StructDef};
        let p = InlinePlace {
            file: "src/main.rs".into(),
            starts: vec![(4, 21), (5, 1)],
            lines: vec![],
        };
        let mut info = ModuleInfo::default();
        info.structs.push(StructDef {
            name: "P".into(),
            fields: vec![],
            size: 0,
            align: 1,
            rust_path: None,
            is_union: false,
            opaque: false,
            name_only: false,
            loc: Some(SourceLoc {
                file: "<inline k>".into(),
                line: 2,
                column: 13,
            }),
        });
        p.relocate_model(&mut info, "<inline k>");
        assert_eq!(
            info.structs[0].loc.as_ref().unwrap().to_string(),
            "src/main.rs:5:13"
        );
    }

    #[test]
    fn nvcc_errors_are_moved_to_the_rust_line_and_column() {
        let p = InlinePlace {
            file: "src/main.rs".into(),
            starts: vec![(8, 21), (9, 1), (10, 1)],
            lines: vec![
                String::new(),
                "  int i = 0".into(),
                "    if (i < n) x[i] = 0;".into(),
            ],
        };
        let nvcc = "<inline k>:3: error: expected a \";\"\n      if (i < n) x[i] = 0;\n      ^\n";
        assert!(
            p.relocate(nvcc, "<inline k>")
                .starts_with("src/main.rs:10:5: error: expected a \";\"")
        );
    }
}

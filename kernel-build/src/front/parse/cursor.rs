//! The parser's cursor over tokens: looking ahead, consuming, locations, and
//! skipping balanced brackets.

use super::Item;
use super::keywords::ATTRIBUTE_CALLS;
use crate::diagnostics::{Diagnostic, Diagnostics, front as msg};
use crate::front::lexer::{TokKind, Token};
use crate::front::linemap::LineMap;
use crate::model::SourceLoc;

/// Deepest nesting of namespaces, blocks and structs the parser follows.
pub(super) const MAX_DEPTH: usize = 64;

pub(super) type PResult<T> = Result<T, Diagnostic>;

/// Parser state: the tokens, a position, and what was found so far.
pub(super) struct Parser<'a> {
    pub(super) src: &'a str,
    pub(super) toks: Vec<Token>,
    pub(super) pos: usize,
    map: &'a LineMap,
    pub(super) items: Vec<Item>,
    pub(super) diags: Diagnostics,
    /// Inside a kernel's declaration: a problem here is an error, elsewhere the
    /// declaration is skipped.
    pub(super) in_kernel: bool,
    /// The `#pragma pack` value in force at each token (`None`: the default packing).
    packs: Vec<Option<u64>>,
}

impl<'a> Parser<'a> {
    pub(super) fn new(src: &'a str, tokens: &[Token], map: &'a LineMap) -> Self {
        let mut toks = Vec::with_capacity(tokens.len());
        let mut packs = Vec::with_capacity(tokens.len());
        let mut pack = Pack::default();
        let mut i = 0;
        while let Some(t) = tokens.get(i) {
            i += 1;
            if t.kind == TokKind::Directive {
                pack.directive(t.text(src));
                continue;
            }
            // `_Pragma("pack(1)")` (what a macro writes) is a directive too.
            if t.text(src) == "_Pragma"
                && let [open, text, close, ..] = tokens.get(i..).unwrap_or_default()
                && open.text(src) == "("
                && text.kind == TokKind::Str
                && close.text(src) == ")"
            {
                let inner = text.text(src).trim_matches('"').replace("\\\"", "\"");
                pack.directive(&format!("#pragma {inner}"));
                i += 3;
                continue;
            }
            toks.push(*t);
            packs.push(pack.current);
        }
        Parser {
            src,
            toks,
            pos: 0,
            map,
            items: Vec::new(),
            diags: Diagnostics::new(),
            in_kernel: false,
            packs,
        }
    }

    /// The `#pragma pack` value in force at token `i`.
    pub(super) fn pack_at(&self, i: usize) -> Option<u64> {
        self.packs.get(i).copied().flatten()
    }

    pub(super) fn peek(&self, ahead: usize) -> Option<&Token> {
        self.toks.get(self.pos + ahead)
    }

    /// Text of the token `ahead` positions on ("" past the end).
    pub(super) fn text(&self, ahead: usize) -> &'a str {
        self.peek(ahead).map(|t| t.text(self.src)).unwrap_or("")
    }

    pub(super) fn is(&self, ahead: usize, s: &str) -> bool {
        self.peek(ahead).is_some_and(|t| t.text(self.src) == s)
    }

    pub(super) fn is_kind(&self, ahead: usize, kind: TokKind) -> bool {
        self.peek(ahead).is_some_and(|t| t.kind == kind)
    }

    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    pub(super) fn bump(&mut self) -> Option<Token> {
        let t = self.toks.get(self.pos).copied();
        self.pos += usize::from(t.is_some());
        t
    }

    pub(super) fn eat(&mut self, s: &str) -> bool {
        let yes = self.is(0, s);
        self.pos += usize::from(yes);
        yes
    }

    pub(super) fn loc_of(&self, t: &Token) -> Option<SourceLoc> {
        self.map.loc(t.line, t.col)
    }

    /// Location of token `i` (or of the current token when `i` is past the end).
    pub(super) fn loc_at(&self, i: usize) -> Option<SourceLoc> {
        self.toks
            .get(i)
            .and_then(|t| self.loc_of(t))
            .or_else(|| self.here())
    }

    /// Location of the current token (or of the last one at the end).
    pub(super) fn here(&self) -> Option<SourceLoc> {
        self.peek(0)
            .or_else(|| self.toks.last())
            .and_then(|t| self.loc_of(t))
    }

    /// A description of the current token for messages.
    pub(super) fn found(&self) -> String {
        if self.at_end() {
            "end of input".to_string()
        } else {
            format!("`{}`", self.text(0))
        }
    }

    pub(super) fn expect(&mut self, s: &str) -> PResult<Token> {
        if self.is(0, s) {
            Ok(self.bump().expect("checked above"))
        } else {
            Err(msg::expected(&format!("`{s}`"), &self.found()).at(self.here()))
        }
    }

    pub(super) fn expect_ident(&mut self, what: &str) -> PResult<Token> {
        if self.is_kind(0, TokKind::Ident) {
            Ok(self.bump().expect("checked above"))
        } else {
            Err(msg::expected(what, &self.found()).at(self.here()))
        }
    }

    /// Skips a balanced group starting at the current opening bracket; errors at the
    /// opening bracket's location when it never closes.
    pub(super) fn skip_group(&mut self) -> PResult<()> {
        let open = self
            .bump()
            .ok_or_else(|| msg::expected("a bracket", "end of input"))?;
        let mut stack = vec![closer(open.text(self.src))];
        while let Some(t) = self.bump() {
            let s = t.text(self.src);
            if let Some(c) = opener(s) {
                stack.push(c);
            } else if matches!(s, ")" | "]" | "}") {
                if stack.last() == Some(&s) {
                    stack.pop();
                    if stack.is_empty() {
                        return Ok(());
                    }
                } else if s == "}" {
                    // A stray closer of an outer block: stop before it.
                    self.pos -= 1;
                    break;
                }
            }
        }
        Err(msg::expected(
            &format!("`{}` to close this `{}`", stack[0], open.text(self.src)),
            "end of input",
        )
        .at(self.loc_of(&open)))
    }

    /// The source text between two token indices, tokens joined with normalised spacing.
    pub(super) fn spelled(&self, from: usize, to: usize) -> String {
        let mut out = String::new();
        let mut prev = "";
        for t in self.toks.get(from..to).unwrap_or(&[]) {
            let s = t.text(self.src);
            let glue = matches!(
                s,
                "*" | "&" | "," | ")" | "]" | ">" | "::" | "(" | "[" | "<"
            ) || matches!(prev, "::" | "(" | "[" | "<")
                || out.is_empty();
            if !glue {
                out.push(' ');
            }
            if s == "," {
                out.push_str(", ");
                prev = " ";
                continue;
            }
            out.push_str(s);
            prev = s;
        }
        out.replace(",  ", ", ")
    }

    /// Like [`Parser::spelled`], without storage words, CUDA space keywords and attributes.
    pub(super) fn spelled_type(&self, from: usize, to: usize) -> String {
        const DROP: &[&str] = &[
            "static",
            "extern",
            "typedef",
            "inline",
            "__inline__",
            "__forceinline__",
            "__noinline__",
            "constexpr",
            "register",
            "__global__",
            "__device__",
            "__constant__",
            "__host__",
            "__shared__",
            "__managed__",
            "__grid_constant__",
            "typename",
        ];
        let mut out = String::new();
        let mut i = from;
        while i < to.min(self.toks.len()) {
            let s = self.toks[i].text(self.src);
            if ATTRIBUTE_CALLS.contains(&s)
                || (s == "["
                    && self
                        .toks
                        .get(i + 1)
                        .is_some_and(|t| t.text(self.src) == "["))
            {
                let mut depth = 0usize;
                i += 1;
                while i < to {
                    match self.toks[i].text(self.src) {
                        "(" | "[" => depth += 1,
                        ")" | "]" => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                continue;
            }
            let after_extern =
                s.starts_with('"') && i > 0 && self.toks[i - 1].text(self.src) == "extern";
            if !DROP.contains(&s) && !after_extern {
                let piece = self.spelled(i, i + 1);
                let glue = matches!(
                    s,
                    "*" | "&" | "," | ")" | "]" | ">" | "::" | "(" | "[" | "<"
                ) || out.ends_with("::")
                    || out.ends_with('<')
                    || out.ends_with('(')
                    || out.is_empty();
                if !glue {
                    out.push(' ');
                }
                out.push_str(&piece);
            }
            i += 1;
        }
        out
    }

    /// Skips the rest of a declaration: to its `;` (consumed), or past a function
    /// body. Stops before a `}` that closes an enclosing block.
    pub(super) fn skip_decl(&mut self) {
        let (mut saw_paren, mut saw_eq, mut aggregate) = (false, false, false);
        // Inside an operator's name (`operator+=`, `operator=`): `=` is no initializer.
        let mut operator_name = false;
        while let Some(t) = self.peek(0).copied() {
            let s = t.text(self.src);
            if s == "operator" {
                operator_name = true;
                self.pos += 1;
                continue;
            }
            // The name ends at its parameter list, or at the `;` of a using-declaration
            // (`using Base::operator=;`).
            if operator_name && !matches!(s, "(" | ";" | "}") {
                self.pos += 1;
                continue;
            }
            operator_name = false;
            match s {
                ";" => {
                    self.pos += 1;
                    return;
                }
                "}" => return,
                "(" | "[" => {
                    saw_paren |= s == "(" && !aggregate;
                    if self.skip_group().is_err() {
                        return;
                    }
                }
                "{" => {
                    if self.skip_group().is_err() {
                        return;
                    }
                    if saw_paren && !saw_eq && !aggregate {
                        return;
                    }
                }
                _ => {
                    saw_eq |= s == "=";
                    aggregate |= matches!(s, "struct" | "class" | "union" | "enum" | "typedef");
                    self.pos += 1;
                }
            }
        }
    }
}

fn opener(s: &str) -> Option<&'static str> {
    match s {
        "(" => Some(")"),
        "[" => Some("]"),
        "{" => Some("}"),
        _ => None,
    }
}

fn closer(open: &str) -> &'static str {
    opener(open).unwrap_or(")")
}

/// The state of `#pragma pack` as directives change it: `pack(n)`, `pack()`,
/// `pack(push[, name][, n])`, `pack(pop[, name][, n])`.
#[derive(Default)]
struct Pack {
    current: Option<u64>,
    stack: Vec<Option<u64>>,
}

impl Pack {
    fn directive(&mut self, text: &str) {
        let Some(rest) = text.trim_start().strip_prefix('#') else {
            return;
        };
        let Some(rest) = rest.trim_start().strip_prefix("pragma") else {
            return;
        };
        let Some(rest) = rest.trim_start().strip_prefix("pack") else {
            return;
        };
        let Some(args) = rest
            .trim()
            .strip_prefix('(')
            .and_then(|r| r.rsplit_once(')'))
            .map(|(a, _)| a)
        else {
            return;
        };
        let parts: Vec<&str> = args.split(',').map(str::trim).collect();
        let value = parts.iter().find_map(|p| p.parse::<u64>().ok());
        match parts.first().copied() {
            Some("push") => {
                self.stack.push(self.current);
                if let Some(v) = value {
                    self.current = Some(v);
                }
            }
            Some("pop") => {
                self.current = self.stack.pop().flatten();
                if let Some(v) = value {
                    self.current = Some(v);
                }
            }
            Some("") | None => self.current = None,
            Some(_) => {
                if let Some(v) = value {
                    self.current = Some(v);
                }
            }
        }
    }
}

#[cfg(test)]
mod pack_tests {
    use super::Pack;

    #[test]
    fn pragma_pack_pushes_sets_and_pops() {
        let mut p = Pack::default();
        p.directive("#pragma pack(push, 1)");
        assert_eq!(p.current, Some(1));
        p.directive("# pragma pack ( push , r1 , 4 )");
        assert_eq!(p.current, Some(4));
        p.directive("#pragma pack(2)");
        assert_eq!(p.current, Some(2));
        p.directive("#pragma pack(pop)");
        assert_eq!(p.current, Some(1));
        p.directive("#pragma pack(pop)");
        assert_eq!(p.current, None);
        p.directive("#pragma pack(8)");
        p.directive("#pragma pack()");
        assert_eq!(p.current, None);
        p.directive("#pragma once");
        assert_eq!(p.current, None);
    }
}

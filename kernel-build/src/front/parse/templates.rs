//! Template parameter and argument lists: skipping `<...>`, reading parameters with
//! their defaults, and reading each argument as text and, when it reads as one, a type.

use super::cursor::{PResult, Parser};
use super::{TArgSyn, TParam};
use crate::diagnostics::front as msg;
use crate::front::lexer::TokKind;

impl Parser<'_> {
    /// Skips `< ... >` with nesting of angle brackets and parentheses.
    pub(super) fn skip_angles(&mut self) -> PResult<()> {
        let open = self.peek(0).copied();
        let mut depth = 0usize;
        while let Some(t) = self.peek(0) {
            match t.text(self.src) {
                "<" => depth += 1,
                ">" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.pos += 1;
                        return Ok(());
                    }
                }
                "(" | "[" | "{" => {
                    self.skip_group()?;
                    continue;
                }
                ";" | "}" | ")" => break,
                _ => {}
            }
            self.pos += 1;
        }
        Err(msg::expected("`>` to close this `<`", &self.found())
            .at(open.and_then(|t| self.loc_of(&t))))
    }

    /// Skips `<a, b<c, d>, e>` and returns the token range of each top-level item.
    fn angle_list_items(&mut self) -> PResult<Vec<(usize, usize)>> {
        let open = self.pos;
        self.skip_angles()?;
        let close = self.pos - 1;
        let mut items = Vec::new();
        let (mut start, mut depth) = (open + 1, 0i32);
        for i in open + 1..=close {
            let s = self.toks[i].text(self.src);
            match s {
                "<" | "(" | "[" => depth += 1,
                ">" | ")" | "]" if i < close => depth -= 1,
                _ => {}
            }
            if (s == "," && depth == 0) || i == close {
                if i > start {
                    items.push((start, i));
                }
                start = i + 1;
            }
        }
        Ok(items)
    }

    /// Reads `<arg, ...>`: each argument keeps its text and, when it reads as one, a type.
    pub(super) fn template_args(&mut self) -> PResult<Vec<TArgSyn>> {
        let items = self.angle_list_items()?;
        let end = self.pos;
        let out = items
            .into_iter()
            .map(|(from, to)| self.targ(from, to))
            .collect();
        self.pos = end;
        Ok(out)
    }

    /// One template argument between token indices.
    fn targ(&mut self, from: usize, to: usize) -> TArgSyn {
        let text = self.spelled(from, to);
        let saved = (self.pos, self.diags.len(), self.items.len());
        self.pos = from;
        let ty = self
            .type_name(&[], from, to)
            .ok()
            .filter(|_| self.pos == to);
        self.pos = saved.0;
        self.items.truncate(saved.2);
        TArgSyn { text, ty }
    }

    /// Reads `<typename T, int N = 4>` after `template`.
    pub(super) fn template_params(&mut self) -> PResult<Vec<TParam>> {
        let items = self.angle_list_items()?;
        items
            .into_iter()
            .map(|(from, to)| self.template_param(from, to))
            .collect()
    }

    /// One template parameter between token indices, with its default.
    fn template_param(&mut self, from: usize, to: usize) -> PResult<TParam> {
        let eq = (from..to).find(|i| self.toks[*i].text(self.src) == "=");
        let decl_end = eq.unwrap_or(to);
        let first = self.toks[from].text(self.src);
        let is_type = matches!(first, "typename" | "class") && decl_end - from <= 2;
        // `float (*op)(float)`: the name is the one after `(*`.
        let fn_ptr_name = (from..decl_end.saturating_sub(2)).find_map(|i| {
            let t = |k: usize| self.toks[k].text(self.src);
            (t(i) == "(" && t(i + 1) == "*" && self.toks[i + 2].kind == TokKind::Ident)
                .then(|| self.toks[i + 2])
        });
        let name_tok = fn_ptr_name.or_else(|| {
            (from..decl_end).rev().map(|i| self.toks[i]).find(|t| {
                t.kind == TokKind::Ident && !matches!(t.text(self.src), "typename" | "class")
            })
        });
        let Some(name_tok) = name_tok.filter(|_| decl_end - from >= 2) else {
            return Err(crate::diagnostics::front::template_param_unnamed()
                .at(self.loc_of(&self.toks[from])));
        };
        let default = match eq {
            Some(e) if e + 1 < to => {
                let saved = self.pos;
                self.pos = e + 1;
                let text = self.spelled(e + 1, to);
                let ty = if is_type {
                    self.type_name(&[], e + 1, to).ok()
                } else {
                    None
                };
                self.pos = saved;
                Some(TArgSyn { text, ty })
            }
            _ => None,
        };
        // The words before the name (`unsigned int`, `Op`, `cfg::Mode`), for a value parameter.
        let value_type = (!is_type && fn_ptr_name.is_none())
            .then(|| {
                let name_at = (from..decl_end).rev().find(|&i| {
                    self.toks[i].kind == TokKind::Ident
                        && self.toks[i].text(self.src) == name_tok.text(self.src)
                })?;
                (name_at > from).then(|| self.spelled(from, name_at))
            })
            .flatten();
        Ok(TParam {
            name: name_tok.text(self.src).to_string(),
            is_type,
            value_type,
            default,
        })
    }
}

//! CUDA attributes in both spellings: `__launch_bounds__(256, 2)` in raw text and
//! `__attribute__((launch_bounds(256, 2)))` in `nvcc -E` output, plus
//! `__cluster_dims__`, `__maxnreg__`, `__align__`/`alignas`/`aligned`, and the
//! space keywords (`global`, `device`, `host`, `constant`, `shared`, `managed`,
//! `grid_constant`) that `nvcc -E` also writes as attributes.

use super::cursor::{PResult, Parser};
use super::decl::Specs;
use crate::front::expr::eval_const;

impl Parser<'_> {
    /// Consumes one attribute at the cursor into `specs`; false when there is none.
    pub(super) fn attribute(&mut self, specs: &mut Specs) -> PResult<bool> {
        match self.text(0) {
            "__attribute__" | "__declspec" => {
                self.pos += 1;
                let open = self.pos;
                self.expect("(")?;
                let inner_start = self.pos;
                self.pos = open;
                self.skip_group()?;
                let inner_end = self.pos - 1;
                // `__attribute__((a, b(1)))`: the list sits inside a second pair of parentheses.
                let (from, to) =
                    if self.toks.get(inner_start).map(|t| t.text(self.src)) == Some("(") {
                        (inner_start + 1, inner_end.saturating_sub(1))
                    } else {
                        (inner_start, inner_end)
                    };
                self.attribute_list(from, to, specs)?;
                Ok(true)
            }
            "__launch_bounds__" | "__cluster_dims__" | "__maxnreg__" | "__align__" | "alignas" => {
                let name = self.text(0).trim_matches('_').to_string();
                let name = if name == "align" || name == "alignas" {
                    "aligned".to_string()
                } else {
                    name
                };
                self.pos += 1;
                let args = self.call_args()?;
                self.apply(&name, &args, specs)?;
                Ok(true)
            }
            "[" if self.is(1, "[") => {
                self.skip_group()?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Reads `name(args), name, ...` between token indices `from..to`.
    fn attribute_list(&mut self, from: usize, to: usize, specs: &mut Specs) -> PResult<()> {
        let saved = self.pos;
        self.pos = from;
        while self.pos < to {
            if self.eat(",") {
                continue;
            }
            let name_tok = self.expect_ident("an attribute name")?;
            let name = name_tok.text(self.src).trim_matches('_').to_string();
            let args = if self.is(0, "(") && self.pos < to {
                self.call_args()?
            } else {
                Vec::new()
            };
            self.apply(&name, &args, specs)?;
        }
        self.pos = saved;
        Ok(())
    }

    /// Reads `( a, b, ... )` and returns each argument's text.
    fn call_args(&mut self) -> PResult<Vec<(String, Option<crate::model::SourceLoc>)>> {
        let open = self.pos;
        self.expect("(")?;
        self.pos = open;
        self.skip_group()?;
        let close = self.pos - 1;
        let mut args = Vec::new();
        let mut start = open + 1;
        let mut depth = 0i32;
        for i in open + 1..=close {
            let s = self.toks[i].text(self.src);
            match s {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" if i < close => depth -= 1,
                _ => {}
            }
            if (s == "," && depth == 0) || i == close {
                if i > start {
                    args.push((self.spelled(start, i), self.loc_of(&self.toks[start])));
                }
                start = i + 1;
            }
        }
        Ok(args)
    }

    fn apply(
        &mut self,
        name: &str,
        args: &[(String, Option<crate::model::SourceLoc>)],
        specs: &mut Specs,
    ) -> PResult<()> {
        let mut values = Vec::new();
        for (text, loc) in args {
            match eval_const(text).and_then(|v| u32::try_from(v).ok()) {
                Some(v) => values.push(v),
                // Launch attributes written with names the front end cannot evaluate
                // (`__launch_bounds__(BLOCK)` with a constexpr BLOCK): the compiled image
                // records them, and verification reads them from there.
                None if matches!(name, "launch_bounds" | "cluster_dims" | "maxnreg") => {
                    return Ok(());
                }
                None if name == "aligned" => {
                    return Err(
                        crate::diagnostics::front::attr_not_constant(text, name).at(loc.clone())
                    );
                }
                None => {}
            }
        }
        match name {
            "global" => specs.global = true,
            "device" => specs.device = true,
            "host" => specs.host = true,
            "constant" => specs.constant = true,
            "shared" => specs.shared = true,
            "managed" => specs.managed = true,
            "grid_constant" => specs.grid_constant = true,
            "launch_bounds" => specs.attrs.launch_bounds = Some(values),
            "cluster_dims" => {
                let d = |i: usize| values.get(i).copied().unwrap_or(1);
                specs.attrs.cluster_dims = Some([d(0), d(1), d(2)]);
            }
            "maxnreg" => specs.attrs.maxnreg = values.first().copied(),
            "aligned" => {
                let asked = values.first().map_or(16, |v| u64::from(*v));
                // Several alignments on one declaration: the largest stands.
                specs.align = Some(specs.align.map_or(asked, |a| a.max(asked)));
            }
            "packed" => specs.packed = true,
            _ => {}
        }
        Ok(())
    }
}

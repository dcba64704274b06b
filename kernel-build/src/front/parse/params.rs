//! Parameter lists: each parameter's type and name, arrays decayed to pointers,
//! default arguments skipped.

use super::ParamSyn;
use super::cursor::{PResult, Parser};
use crate::diagnostics::front as msg;
use crate::model::Qualifiers;

impl Parser<'_> {
    /// Reads a parenthesised parameter list.
    pub(super) fn params(&mut self) -> PResult<Vec<ParamSyn>> {
        self.expect("(")?;
        let mut out = Vec::new();
        if self.eat(")") {
            return Ok(out);
        }
        if self.is(0, "void") && self.is(1, ")") {
            self.pos += 2;
            return Ok(out);
        }
        loop {
            if self.is(0, "...") {
                return Err(
                    crate::diagnostics::front::unsupported_param("variadic kernels")
                        .at(self.here()),
                );
            }
            let start = self.pos;
            let mut sp = self.decl_specs(&[], 1)?;
            // A function parameter pack of a variadic template (`Ts... args`).
            let pack = self.eat("...");
            let mut d = self.declarator(&mut sp)?;
            let end = self.pos;
            if d.reference {
                return Err(crate::diagnostics::front::unsupported_param(
                    "reference parameters in kernels",
                )
                .at(self.loc_at(start)));
            }
            // An array parameter is a pointer to its element.
            if !d.extents.is_empty() {
                if d.extents.len() > 1 {
                    return Err(crate::diagnostics::front::unsupported_param(
                        "multi-dimensional array parameters",
                    )
                    .at(self.loc_at(start)));
                }
                d.ptrs.push(Qualifiers::default());
            }
            let name_idx = d.name.as_ref().map(|(_, i)| *i);
            let ty = self.make_type(&sp, &d.ptrs, start, end, name_idx)?;
            let name = d.name.map(|(parts, _)| parts.join("::"));
            let loc = self.loc_at(start);
            out.push(ParamSyn {
                ty,
                name,
                grid_constant: sp.grid_constant,
                pack,
                loc,
            });
            if self.is(0, "=") {
                while !self.at_end() && !self.is(0, ",") && !self.is(0, ")") {
                    if matches!(self.text(0), "(" | "[" | "{") {
                        self.skip_group()?;
                    } else {
                        self.pos += 1;
                    }
                }
            }
            if self.eat(")") {
                return Ok(out);
            }
            if !self.eat(",") {
                return Err(
                    msg::expected("`,` or `)` in the parameter list", &self.found())
                        .at(self.here()),
                );
            }
        }
    }
}

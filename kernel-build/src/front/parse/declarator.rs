//! Declarators: pointer levels, the declared name, function and array suffixes, and
//! type names built from specifiers plus an abstract declarator.

use super::cursor::{PResult, Parser};
use super::decl::Specs;
use super::keywords::is_keyword;
use super::{BaseSyn, ParamSyn, TArgSyn, TypeSyn};
use crate::diagnostics::front as msg;
use crate::front::lexer::TokKind;
use crate::model::{Qualifiers, SourceLoc};

/// What follows the specifiers: pointers, a name, and a function or array suffix.
#[derive(Default)]
pub(super) struct Declarator {
    pub(super) ptrs: Vec<Qualifiers>,
    pub(super) name: Option<(Vec<String>, usize)>,
    pub(super) targs: Option<Vec<TArgSyn>>,
    pub(super) params: Option<Vec<ParamSyn>>,
    pub(super) extents: Vec<(String, Option<SourceLoc>)>,
    pub(super) reference: bool,
}

impl Parser<'_> {
    /// Reads `a::b::c` (optionally with a leading `::`); returns the parts and the last token index.
    pub(super) fn qualified_name(&mut self) -> PResult<(Vec<String>, usize)> {
        self.eat("::");
        let mut parts = Vec::new();
        loop {
            let t = self.expect_ident("a name")?;
            parts.push(t.text(self.src).to_string());
            if self.is(0, "::") && self.is_kind(1, TokKind::Ident) {
                self.pos += 1;
            } else {
                return Ok((parts, self.pos - 1));
            }
        }
    }

    /// Reads a declarator; the name may be missing (parameters, type names).
    pub(super) fn declarator(&mut self, sp: &mut Specs) -> PResult<Declarator> {
        let mut d = Declarator::default();
        loop {
            if self.attribute(sp)? {
                continue;
            }
            match self.text(0) {
                "*" => d.ptrs.push(Qualifiers::default()),
                "&" | "&&" => d.reference = true,
                "const" => {
                    if let Some(q) = d.ptrs.last_mut() {
                        q.is_const = true;
                    } else {
                        sp.quals.is_const = true;
                    }
                }
                "volatile" => {
                    if let Some(q) = d.ptrs.last_mut() {
                        q.is_volatile = true;
                    } else {
                        sp.quals.is_volatile = true;
                    }
                }
                "__restrict__" | "__restrict" | "restrict" => {}
                "__grid_constant__" => sp.grid_constant = true,
                "(" if self.is(1, "*") || self.is(1, "&") || self.is(1, "^") => {
                    return self.parenthesised(sp, d);
                }
                _ => break,
            }
            self.pos += 1;
        }
        if (self.is_kind(0, TokKind::Ident) && !is_keyword(self.text(0)))
            || (self.is(0, "::") && self.is_kind(1, TokKind::Ident))
        {
            d.name = Some(self.qualified_name()?);
        }
        if d.name.is_some() && self.is(0, "<") {
            d.targs = Some(self.template_args()?);
        }
        if self.is(0, "(") {
            d.params = Some(self.params()?);
        }
        while self.is(0, "[") {
            let open = self.pos;
            let loc = self.here();
            self.skip_group()?;
            d.extents.push((self.spelled(open + 1, self.pos - 1), loc));
        }
        Ok(d)
    }

    /// The rest of a declarator from `(` on: `(*name)(params)` is a function pointer,
    /// `(*name)[N]` a pointer to arrays. What was read before the `(` (in `sp` and
    /// `outer`) is the function's return type or the arrays' element type.
    fn parenthesised(&mut self, sp: &mut Specs, outer: Declarator) -> PResult<Declarator> {
        let open = self.here();
        self.pos += 1;
        let mut d = Declarator::default();
        loop {
            match self.text(0) {
                "*" => d.ptrs.push(Qualifiers::default()),
                "&" | "&&" => d.reference = true,
                "const" | "volatile" => {
                    if let Some(q) = d.ptrs.last_mut() {
                        q.is_const |= self.is(0, "const");
                        q.is_volatile |= self.is(0, "volatile");
                    }
                }
                "__restrict__" | "__restrict" | "restrict" => {}
                _ => break,
            }
            self.pos += 1;
        }
        if self.is_kind(0, TokKind::Ident) && !is_keyword(self.text(0)) {
            d.name = Some(self.qualified_name()?);
        }
        self.expect(")")?;
        let written = String::new();
        if self.is(0, "(") {
            // A function's address: what it returns and takes does not change its layout.
            self.skip_group()?;
            if d.ptrs.is_empty() {
                return Err(crate::diagnostics::front::function_type_not_object().at(open));
            }
            d.ptrs.remove(0);
            sp.base = Some(BaseSyn::FnPtr);
        } else if self.is(0, "[") {
            let mut extents = Vec::new();
            while self.is(0, "[") {
                let from = self.pos;
                self.skip_group()?;
                extents.push(self.spelled(from + 1, self.pos - 1));
            }
            let elem = TypeSyn {
                base: sp.base.take().unwrap_or(BaseSyn::Void),
                base_quals: sp.quals,
                ptrs: outer.ptrs,
                written,
                loc: open.clone(),
            };
            sp.base = Some(BaseSyn::Array {
                elem: Box::new(elem),
                extents,
            });
        } else {
            return Err(msg::expected(
                "`(` or `[` after a parenthesised declarator",
                &self.found(),
            )
            .at(self.here()));
        }
        sp.quals = Qualifiers::default();
        Ok(d)
    }

    /// Reads a type name (specifiers plus an abstract declarator) ending at `to`.
    pub(super) fn type_name(
        &mut self,
        namespace: &[String],
        from: usize,
        to: usize,
    ) -> PResult<TypeSyn> {
        let mut sp = self.decl_specs(namespace, 1)?;
        let d = self.declarator(&mut sp)?;
        if d.name.is_some() || d.params.is_some() {
            return Err(msg::expected("a type", "a declaration").at(self.here()));
        }
        self.make_type(&sp, &d.ptrs, from, to.min(self.pos), None)
    }

    /// Builds a [`TypeSyn`] from specifiers and pointer levels.
    pub(super) fn make_type(
        &self,
        sp: &Specs,
        ptrs: &[Qualifiers],
        from: usize,
        to: usize,
        skip: Option<usize>,
    ) -> PResult<TypeSyn> {
        let loc = self.loc_at(from);
        let base = sp
            .base
            .clone()
            .ok_or_else(|| msg::expected("a type", &self.found()).at(loc.clone()))?;
        let written = match skip {
            Some(i) if i >= from && i < to => {
                let (a, b) = (self.spelled_type(from, i), self.spelled_type(i + 1, to));
                if b.is_empty() { a } else { format!("{a} {b}") }
            }
            _ => self.spelled_type(from, to),
        };
        Ok(TypeSyn {
            base,
            base_quals: sp.quals,
            ptrs: ptrs.to_vec(),
            written,
            loc,
        })
    }
}

//! Kernel declarations: `__global__` functions, template kernels and their explicit
//! instantiations.

use super::cursor::{PResult, Parser};
use super::items::Scope;
use super::{Item, KernelSyn, TParam};
use crate::diagnostics::front as msg;

impl Parser<'_> {
    /// True when the instantiation at the cursor names a template kernel seen before.
    pub(super) fn instantiates_known_template(&self, scope: &Scope) -> bool {
        let mut i = self.pos;
        while let Some(t) = self.toks.get(i) {
            if matches!(t.text(self.src), "<" | "(" | ";") {
                break;
            }
            i += 1;
        }
        let Some(name) = i
            .checked_sub(1)
            .and_then(|j| self.toks.get(j))
            .map(|t| t.text(self.src))
        else {
            return false;
        };
        self.items.iter().any(|it| {
            matches!(it, Item::Kernel(k) if k.template.is_some() && k.name == name && scope.namespace.starts_with(&k.namespace))
        })
    }

    /// Reads a kernel declaration or definition starting at `start`.
    pub(super) fn kernel(
        &mut self,
        scope: &Scope,
        template: Option<Vec<TParam>>,
        is_inst: bool,
        start: usize,
    ) -> PResult<KernelSyn> {
        let loc = self.loc_at(start);
        let ret_start = self.pos;
        let mut sp = self.decl_specs(&scope.namespace, 1)?;
        let ret_end = self.pos;
        let d = self.declarator(&mut sp)?;
        let Some((mut parts, _)) = d.name else {
            return Err(msg::expected("a kernel name", &self.found()).at(self.here()));
        };
        let Some(params) = d.params else {
            return Err(msg::expected("`(` after the kernel name", &self.found()).at(self.here()));
        };
        let ret = self.make_type(&sp, &d.ptrs, ret_start, ret_end, None)?;
        // Trailing attributes and exception specifications.
        loop {
            if self.attribute(&mut sp)? {
                continue;
            }
            match self.text(0) {
                "noexcept" | "throw" => {
                    self.pos += 1;
                    if self.is(0, "(") {
                        self.skip_group()?;
                    }
                }
                "const" | "override" | "final" => self.pos += 1,
                _ => break,
            }
        }
        if self.is(0, "{") {
            self.skip_group()?;
        } else {
            self.expect(";")?;
        }
        let name = parts.pop().unwrap_or_default();
        let mut namespace = scope.namespace.clone();
        namespace.extend(parts);
        Ok(KernelSyn {
            name,
            namespace,
            template,
            args: d.targs,
            is_instantiation: is_inst,
            linkage: sp.linkage.unwrap_or(scope.linkage),
            is_static: sp.is_static,
            ret,
            params,
            attrs: sp.attrs,
            loc,
            symbol: None,
        })
    }
}

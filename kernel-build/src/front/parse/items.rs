//! The top level: namespaces, linkage blocks, templates, and the choice of what
//! each declaration is (kernel, struct, typedef, global, or something skipped).

use super::cursor::{MAX_DEPTH, PResult, Parser};
use super::{Item, KernelSyn, TArgSyn, TParam};
use crate::diagnostics::{Diagnostic, front as msg};
use crate::front::lexer::TokKind;
use crate::model::Linkage;

/// Where a declaration sits: its namespaces and the linkage of the enclosing block.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    pub(crate) namespace: Vec<String>,
    pub(crate) linkage: Linkage,
}

impl Default for Scope {
    fn default() -> Self {
        Scope {
            namespace: Vec::new(),
            linkage: Linkage::Cxx,
        }
    }
}

/// What the head of a declaration (up to `;`, `{` or `=`) contains.
#[derive(Default)]
struct Head {
    global: bool,
    space_var: bool,
    local_space: bool,
    typedef: bool,
    function: bool,
    aggregate_first: bool,
}

const ATTR_CALLS: &[&str] = &[
    "__attribute__",
    "__declspec",
    "__launch_bounds__",
    "__cluster_dims__",
    "__maxnreg__",
    "__align__",
    "alignas",
    "decltype",
    "sizeof",
    "noexcept",
    "throw",
];

impl Parser<'_> {
    /// Reads declarations until the `}` closing this block (consumed) or the end.
    pub(crate) fn items_until_close(&mut self, scope: &Scope, depth: usize) {
        while !self.at_end() {
            let before = self.pos;
            if self.is(0, "}") {
                if depth > 0 {
                    self.pos += 1;
                    return;
                }
                self.diags
                    .push(msg::expected("a declaration", "`}`").at(self.here()));
                self.pos += 1;
                continue;
            }
            if let Err(d) = self.item(scope, depth) {
                self.diags.push(d);
                self.skip_decl();
            }
            if self.pos == before {
                self.pos += 1;
            }
        }
        if depth > 0 {
            self.diags
                .push(msg::expected("`}` to close a block", "end of input").at(self.here()));
        }
    }

    fn item(&mut self, scope: &Scope, depth: usize) -> PResult<()> {
        if depth > MAX_DEPTH {
            return Err(Diagnostic::error("declarations are nested too deeply").at(self.here()));
        }
        match self.text(0) {
            ";" => {
                self.pos += 1;
                Ok(())
            }
            "namespace" => self.namespace(scope, depth),
            "extern" if self.is_kind(1, TokKind::Str) && self.is(2, "{") => {
                let linkage = if self.is(1, "\"C\"") {
                    Linkage::C
                } else {
                    Linkage::Cxx
                };
                self.pos += 3;
                let inner = Scope {
                    namespace: scope.namespace.clone(),
                    linkage,
                };
                self.items_until_close(&inner, depth + 1);
                Ok(())
            }
            "extern" if self.is(1, "template") => {
                self.skip_decl();
                Ok(())
            }
            "template" if self.is(1, "<") => {
                self.pos += 1;
                let params = self.template_params()?;
                if self.is(0, "template") || self.is(0, "friend") {
                    // Member templates of class templates and friends: not kernels.
                    self.skip_decl();
                    return Ok(());
                }
                self.declaration(scope, Some(params), false, depth)
            }
            "template" => {
                self.pos += 1;
                self.declaration(scope, None, true, depth)
            }
            "using" if self.is_kind(1, TokKind::Ident) && self.is(2, "=") => self.alias(scope),
            "using" | "static_assert" | "asm" | "__asm__" => {
                self.skip_decl();
                Ok(())
            }
            _ => self.declaration(scope, None, false, depth),
        }
    }

    fn namespace(&mut self, scope: &Scope, depth: usize) -> PResult<()> {
        self.pos += 1;
        let mut inner = scope.clone();
        if self.is_kind(0, TokKind::Ident) {
            let (parts, _) = self.qualified_name()?;
            if self.is(0, "=") {
                self.skip_decl();
                return Ok(());
            }
            inner.namespace.extend(parts);
        } else {
            inner.namespace.push("(anonymous namespace)".to_string());
        }
        self.expect("{")?;
        self.items_until_close(&inner, depth + 1);
        Ok(())
    }

    /// Reads `<typename T, int N = 4>` after `template`.
    fn template_params(&mut self) -> PResult<Vec<TParam>> {
        let open = self.pos;
        self.skip_angles()?;
        let close = self.pos - 1;
        let mut out = Vec::new();
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
                    out.push(self.template_param(start, i)?);
                }
                start = i + 1;
            }
        }
        Ok(out)
    }

    fn template_param(&mut self, from: usize, to: usize) -> PResult<TParam> {
        let eq = (from..to).find(|i| self.toks[*i].text(self.src) == "=");
        let decl_end = eq.unwrap_or(to);
        let first = self.toks[from].text(self.src);
        let is_type = matches!(first, "typename" | "class") && decl_end - from <= 2;
        let name_tok = (from..decl_end).rev().map(|i| self.toks[i]).find(|t| {
            t.kind == TokKind::Ident && !matches!(t.text(self.src), "typename" | "class")
        });
        let Some(name_tok) = name_tok.filter(|_| decl_end - from >= 2) else {
            return Err(Diagnostic::error("template parameters need a name")
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
        Ok(TParam {
            name: name_tok.text(self.src).to_string(),
            is_type,
            default,
        })
    }

    /// Looks at the head of the declaration at the cursor without consuming it.
    fn head(&self) -> Head {
        let mut h = Head::default();
        let mut i = self.pos;
        let mut first = true;
        while let Some(t) = self.toks.get(i) {
            let s = t.text(self.src);
            if matches!(s, ";" | "{" | "=" | "}") {
                break;
            }
            if first {
                h.aggregate_first = matches!(s, "struct" | "class" | "union" | "enum");
                first = false;
            }
            match s {
                "__global__" => h.global = true,
                "__constant__" | "__device__" => h.space_var = true,
                "__shared__" | "__managed__" => h.local_space = true,
                "typedef" => h.typedef = true,
                "(" => {
                    let attr = i > 0 && ATTR_CALLS.contains(&self.toks[i - 1].text(self.src));
                    let end = self.group_end(i);
                    for t in &self.toks[i..end] {
                        match t.text(self.src) {
                            "global" | "__global__" if attr => h.global = true,
                            "constant" | "device" if attr => h.space_var = true,
                            "shared" | "managed" if attr => h.local_space = true,
                            _ => {}
                        }
                    }
                    h.function |= !attr;
                    i = end;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        h
    }

    /// Index one past the bracket group opening at `open`.
    fn group_end(&self, open: usize) -> usize {
        let mut depth = 0usize;
        for (j, t) in self.toks.iter().enumerate().skip(open) {
            match t.text(self.src) {
                "(" | "[" => depth += 1,
                ")" | "]" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return j + 1;
                    }
                }
                ";" | "{" | "}" => return j,
                _ => {}
            }
        }
        self.toks.len()
    }

    fn declaration(
        &mut self,
        scope: &Scope,
        template: Option<Vec<super::TParam>>,
        is_inst: bool,
        depth: usize,
    ) -> PResult<()> {
        let h = self.head();
        if h.typedef {
            return self.typedef(scope, depth);
        }
        if h.function && (h.global || (is_inst && self.instantiates_known_template(scope))) {
            let start = self.pos;
            let k = self.kernel(scope, template, is_inst, start)?;
            self.items.push(Item::Kernel(k));
            return Ok(());
        }
        if h.function || template.is_some() {
            self.skip_decl();
            return Ok(());
        }
        if h.space_var && !h.local_space {
            return self.global_var(scope, depth);
        }
        if h.aggregate_first {
            // A struct definition (perhaps with host variables after it).
            let mut sp = self.decl_specs(&scope.namespace, depth + 1)?;
            let _ = self.declarator(&mut sp);
        }
        self.skip_decl();
        Ok(())
    }

    /// True when the instantiation at the cursor names a template kernel seen before.
    fn instantiates_known_template(&self, scope: &Scope) -> bool {
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

    fn kernel(
        &mut self,
        scope: &Scope,
        template: Option<Vec<super::TParam>>,
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
        })
    }
}

//! The top level: namespaces, linkage blocks, templates, and the choice of what
//! each declaration is (kernel, struct, typedef, global, or something skipped).

use super::cursor::{MAX_DEPTH, PResult, Parser};
use super::{Item, TParam};
use crate::diagnostics::front as msg;
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
                let why = msg::expected("a declaration", "`}`").at(self.here());
                self.items.push(Item::Skipped { name: None, why });
                self.pos += 1;
                continue;
            }
            self.in_kernel = false;
            if let Err(d) = self.item(scope, depth) {
                if self.in_kernel {
                    self.diags.push(d);
                    self.skip_decl();
                } else {
                    // Not part of a kernel's signature: skip the whole declaration
                    // from its start, and keep the reason for a later `unknown type`.
                    let name = self.declared_name(before);
                    self.items.push(Item::Skipped { name, why: d });
                    self.pos = before;
                    self.skip_decl();
                }
            }
            self.in_kernel = false;
            if self.pos == before {
                self.pos += 1;
            }
        }
        if depth > 0 {
            self.diags
                .push(msg::expected("`}` to close a block", "end of input").at(self.here()));
        }
    }

    /// Reads one declaration, or a namespace or linkage block with what it holds.
    fn item(&mut self, scope: &Scope, depth: usize) -> PResult<()> {
        if depth > MAX_DEPTH {
            return Err(
                crate::diagnostics::front::nested_too_deeply("declarations").at(self.here())
            );
        }
        match self.text(0) {
            ";" => {
                self.pos += 1;
                Ok(())
            }
            "namespace" => self.namespace(scope, depth, false),
            // Its names are also the enclosing namespace's: it adds nothing to them.
            "inline" if self.is(1, "namespace") => {
                self.pos += 1;
                self.namespace(scope, depth, true)
            }
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
                if self.is(0, "using") && self.is_kind(1, TokKind::Ident) && self.is(2, "=") {
                    return self.alias_template(scope, params);
                }
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

    /// Reads `namespace a::b { ... }` (an alias is skipped); the names of an `inline`
    /// namespace are the enclosing one's.
    fn namespace(&mut self, scope: &Scope, depth: usize, inline: bool) -> PResult<()> {
        self.pos += 1;
        let mut inner = scope.clone();
        if self.is_kind(0, TokKind::Ident) && !self.is(0, "__attribute__") {
            let (parts, _) = self.qualified_name()?;
            if self.is(0, "=") {
                self.skip_decl();
                return Ok(());
            }
            if !inline {
                inner.namespace.extend(parts);
            }
        } else if !inline {
            inner.namespace.push("(anonymous namespace)".to_string());
        }
        // `namespace std __attribute__((__visibility__("default"))) {`
        while self.is(0, "__attribute__") && self.is(1, "(") {
            self.pos += 1;
            self.skip_group()?;
        }
        self.expect("{")?;
        self.items_until_close(&inner, depth + 1);
        Ok(())
    }

    /// Reads one declaration after any `template<...>`: a kernel, typedef or module
    /// global is kept, a struct met in it is recorded, anything else is skipped.
    fn declaration(
        &mut self,
        scope: &Scope,
        template: Option<Vec<TParam>>,
        is_inst: bool,
        depth: usize,
    ) -> PResult<()> {
        let h = self.head();
        if h.typedef {
            return self.typedef(scope, depth);
        }
        if h.function && (h.global || (is_inst && self.instantiates_known_template(scope))) {
            self.in_kernel = true;
            let start = self.pos;
            let k = self.kernel(scope, template, is_inst, start)?;
            self.items.push(Item::Kernel(k));
            return Ok(());
        }
        if h.aggregate_first
            && !h.function
            && let Some(params) = template
        {
            return self.struct_template(scope, params, depth);
        }
        if h.function && template.is_none() && !h.space_var && self.defines_c_function(scope) {
            let start = self.pos;
            if let Ok(f) = self.kernel(scope, None, false, start) {
                self.items.push(Item::HostFn(f));
                return Ok(());
            }
            self.pos = start;
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
        let from = self.pos;
        self.skip_decl();
        self.integer_constant(scope, from, self.pos);
        Ok(())
    }

    /// True when the function declaration at the cursor has C linkage (its block's, or its
    /// own `extern "C"`) and a body: a host function the module defines.
    fn defines_c_function(&self, scope: &Scope) -> bool {
        let mut c = scope.linkage == Linkage::C;
        let mut i = self.pos;
        let mut depth = 0usize;
        while let Some(t) = self.toks.get(i) {
            match t.text(self.src) {
                "extern" if depth == 0 => {
                    c |= self.toks.get(i + 1).map(|t| t.text(self.src)) == Some("\"C\"");
                }
                "static" | "inline" if depth == 0 => return false,
                "(" | "[" => depth += 1,
                ")" | "]" => depth = depth.saturating_sub(1),
                "{" if depth == 0 => return c,
                ";" | "=" | "}" if depth == 0 => return false,
                _ => {}
            }
            i += 1;
        }
        false
    }

    /// Records `[static] const[expr] <integer type> NAME = value;` (tokens `from..to`) as a
    /// named constant, for array extents and template arguments that name it.
    fn integer_constant(&mut self, scope: &Scope, from: usize, to: usize) {
        let words: Vec<&str> = (from..to).map(|i| self.toks[i].text(self.src)).collect();
        let Some(eq) = words.iter().position(|w| *w == "=") else {
            return;
        };
        let constant = words[..eq]
            .iter()
            .any(|w| matches!(*w, "const" | "constexpr"));
        let name_at = eq.checked_sub(1);
        let Some(name_at) = name_at.filter(|&n| n > 0 && constant) else {
            return;
        };
        let integral = words[..name_at].iter().all(|w| {
            matches!(
                *w,
                "static"
                    | "inline"
                    | "const"
                    | "constexpr"
                    | "__device__"
                    | "__host__"
                    | "__attribute__"
                    | "unsigned"
                    | "signed"
                    | "int"
                    | "long"
                    | "short"
                    | "char"
                    | "bool"
                    | "size_t"
                    | "auto"
            ) || (w.ends_with("_t") && (w.starts_with("int") || w.starts_with("uint")))
        });
        let end = words.iter().rposition(|w| *w == ";").unwrap_or(words.len());
        if !integral || self.toks[from + name_at].kind != TokKind::Ident || end <= eq + 1 {
            return;
        }
        self.items.push(Item::Constant(super::ConstSyn {
            name: words[name_at].to_owned(),
            namespace: scope.namespace.clone(),
            value: self.spelled(from + eq + 1, from + end),
        }));
    }

    /// Reads `template <...> struct name { ... };` (a class template) and
    /// `template <> struct name<args> { ... };` (one of its full specializations, a struct
    /// of its own under that name); a partial specialization is skipped.
    fn struct_template(&mut self, scope: &Scope, params: Vec<TParam>, depth: usize) -> PResult<()> {
        let first = self.items.len();
        self.decl_specs(&scope.namespace, depth + 1)?;
        // The struct this declares is recorded last, after the structs nested in it,
        // which depend on the parameters and are dropped.
        let def = match self.items.pop() {
            Some(Item::Struct(def)) if self.items.len() >= first => Some(def),
            Some(other) => {
                self.items.push(other);
                None
            }
            None => None,
        };
        let specialized = def
            .as_ref()
            .and_then(|d| d.name.as_deref())
            .is_some_and(|n| n.contains('<'));
        match (def, params.is_empty(), specialized) {
            // A full specialization is a struct like any other, member types included.
            (Some(def), true, true) => self.items.push(Item::Struct(def)),
            (Some(mut def), false, false) => {
                // Enumerations nested in it do not depend on its parameters: keep them. Its
                // member types may (`using DTypeQ = DTypeQ_;`): they go with the template,
                // bound when an instance is laid out.
                let own = def.name.clone().unwrap_or_default();
                let mut nested: Vec<Item> = Vec::new();
                for item in self.items.drain(first..) {
                    match item {
                        Item::Enum(_) => nested.push(item),
                        Item::Typedef(t)
                            if t.extents.is_empty() && t.namespace.last() == Some(&own) =>
                        {
                            def.member_types.push((t.name, t.ty));
                        }
                        _ => {}
                    }
                }
                self.items.extend(nested);
                self.items.push(Item::StructTemplate { params, def });
            }
            _ => self.items.truncate(first),
        }
        self.skip_decl();
        Ok(())
    }

    /// The name a declaration starting at `from` declares, as far as a glance tells:
    /// the tag of a struct, class, union or enum, or a typedef's name (`fp_t` in
    /// `typedef void (*fp_t)(int);`).
    fn declared_name(&self, from: usize) -> Option<String> {
        let text = |i: usize| self.toks.get(i).map(|t| t.text(self.src));
        let is_ident = |i: usize| self.toks.get(i).is_some_and(|t| t.kind == TokKind::Ident);
        let mut i = from;
        let mut typedef = false;
        while let Some(s) = text(i) {
            match s {
                "typedef" => typedef = true,
                "struct" | "class" | "union" | "enum" if !typedef => {
                    let mut j = i + 1;
                    while matches!(text(j), Some("class" | "struct")) {
                        j += 1;
                    }
                    return is_ident(j).then(|| text(j).unwrap_or_default().to_owned());
                }
                "(" if typedef && text(i + 1) == Some("*") && is_ident(i + 2) => {
                    return text(i + 2).map(str::to_owned);
                }
                ";" if typedef => {
                    return (i > from && is_ident(i - 1))
                        .then(|| text(i - 1).unwrap_or_default().to_owned());
                }
                "{" if typedef => {
                    // `typedef struct { ... } name;`: step over the body.
                    let mut depth = 0usize;
                    while let Some(s) = text(i) {
                        match s {
                            "{" => depth += 1,
                            "}" => depth -= 1,
                            _ => {}
                        }
                        i += 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    continue;
                }
                ";" | "{" => return None,
                _ => {}
            }
            i += 1;
        }
        None
    }
}

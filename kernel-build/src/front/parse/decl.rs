//! Declaration specifiers, declarators, parameter lists and template arguments.

use super::cursor::{PResult, Parser};
use super::{BaseSyn, Item, ParamSyn, TArgSyn, TypeSyn};
use crate::diagnostics::{Diagnostic, front as msg};
use crate::front::lexer::TokKind;
use crate::model::{KernelAttrs, Linkage, Qualifiers, Scalar, SourceLoc};

/// What the declaration specifiers of one declaration say.
#[derive(Default)]
pub(super) struct Specs {
    pub(super) global: bool,
    pub(super) device: bool,
    pub(super) host: bool,
    pub(super) constant: bool,
    pub(super) shared: bool,
    pub(super) managed: bool,
    pub(super) grid_constant: bool,
    pub(super) is_static: bool,
    pub(super) is_typedef: bool,
    pub(super) linkage: Option<Linkage>,
    pub(super) attrs: KernelAttrs,
    pub(super) align: Option<u64>,
    pub(super) quals: Qualifiers,
    pub(super) base: Option<BaseSyn>,
    words: Vec<&'static str>,
}

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

const TYPE_WORDS: &[&str] = &[
    "void", "bool", "_Bool", "char", "short", "int", "long", "signed", "unsigned", "float",
    "double", "__int128",
];
const IGNORED: &[&str] = &[
    "inline",
    "__inline__",
    "__inline",
    "__forceinline__",
    "__noinline__",
    "constexpr",
    "register",
    "virtual",
    "explicit",
    "mutable",
    "thread_local",
    "typename",
    "friend",
    "__device_builtin__",
    "__cudart_builtin__",
    "__restrict__",
    "__restrict",
    "restrict",
    "auto",
    "__extension__",
];

fn is_keyword(s: &str) -> bool {
    TYPE_WORDS.contains(&s)
        || IGNORED.contains(&s)
        || matches!(
            s,
            "const"
                | "volatile"
                | "static"
                | "extern"
                | "struct"
                | "class"
                | "union"
                | "enum"
                | "typedef"
        )
}

impl Parser<'_> {
    /// Reads declaration specifiers (qualifiers, storage, CUDA spaces, attributes, the base type).
    pub(super) fn decl_specs(&mut self, namespace: &[String], depth: usize) -> PResult<Specs> {
        let mut sp = Specs::default();
        while !self.at_end() {
            if self.attribute(&mut sp)? {
                continue;
            }
            let s = self.text(0);
            match s {
                "const" => sp.quals.is_const = true,
                "volatile" => sp.quals.is_volatile = true,
                "static" => sp.is_static = true,
                "typedef" => sp.is_typedef = true,
                "__global__" => sp.global = true,
                "__device__" => sp.device = true,
                "__host__" => sp.host = true,
                "__constant__" => sp.constant = true,
                "__shared__" => sp.shared = true,
                "__managed__" => sp.managed = true,
                "__grid_constant__" => sp.grid_constant = true,
                "extern" => {
                    if self.is_kind(1, TokKind::Str) {
                        self.pos += 1;
                        sp.linkage = Some(if self.text(0) == "\"C\"" {
                            Linkage::C
                        } else {
                            Linkage::Cxx
                        });
                    }
                }
                "struct" | "class" | "union" | "enum"
                    if sp.base.is_none() && sp.words.is_empty() =>
                {
                    sp.base = Some(self.elaborated(namespace, depth)?);
                    continue;
                }
                _ if IGNORED.contains(&s) => {}
                _ if TYPE_WORDS.contains(&s) && sp.base.is_none() => {
                    sp.words.push(
                        TYPE_WORDS
                            .iter()
                            .find(|w| **w == s)
                            .copied()
                            .unwrap_or("int"),
                    );
                }
                _ if (self.is_kind(0, TokKind::Ident)
                    || (s == "::" && self.is_kind(1, TokKind::Ident)))
                    && sp.base.is_none()
                    && sp.words.is_empty()
                    && !is_keyword(s) =>
                {
                    let (parts, _) = self.qualified_name()?;
                    let mut name = parts.join("::");
                    if self.is(0, "<") {
                        let start = self.pos;
                        self.skip_angles()?;
                        name.push_str(&self.spelled(start, self.pos));
                    }
                    sp.base = Some(BaseSyn::Named(name));
                    continue;
                }
                _ => break,
            }
            self.pos += 1;
        }
        if !sp.words.is_empty() {
            sp.base = Some(builtin(&sp.words).map_err(|d| d.at(self.here()))?);
        }
        Ok(sp)
    }

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
                "(" if self.is(1, "*") || self.is(1, "&") => {
                    return Err(Diagnostic::error(
                        "function pointers and parenthesised declarators are not supported",
                    )
                    .at(self.here()));
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

    /// Reads `<arg, ...>`: each argument keeps its text and, when it reads as one, a type.
    pub(super) fn template_args(&mut self) -> PResult<Vec<TArgSyn>> {
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
                    out.push(self.targ(start, i));
                }
                start = i + 1;
            }
        }
        self.pos = close + 1;
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
                return Err(Diagnostic::error("variadic kernels are not supported").at(self.here()));
            }
            let start = self.pos;
            let mut sp = self.decl_specs(&[], 1)?;
            let mut d = self.declarator(&mut sp)?;
            let end = self.pos;
            if d.reference {
                return Err(
                    Diagnostic::error("reference parameters are not supported in kernels")
                        .at(self.loc_at(start)),
                );
            }
            // An array parameter is a pointer to its element.
            if !d.extents.is_empty() {
                if d.extents.len() > 1 {
                    return Err(Diagnostic::error(
                        "multi-dimensional array parameters are not supported",
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

    /// Records a struct met in a specifier and returns the base it names.
    fn elaborated(&mut self, namespace: &[String], depth: usize) -> PResult<BaseSyn> {
        let kw = self.text(0);
        let start = self.pos;
        self.pos += 1;
        let mut sp = Specs::default();
        while self.attribute(&mut sp)? {}
        let name = if self.is_kind(0, TokKind::Ident) {
            Some(self.qualified_name()?.0.join("::"))
        } else {
            None
        };
        while self.attribute(&mut sp)? {}
        if kw == "enum" {
            // Enumerations are not laid out; name them so that a use reports the type.
            if self.is(0, ":") || self.is(0, "{") {
                while !self.at_end() && !self.is(0, "{") && !self.is(0, ";") {
                    self.pos += 1;
                }
                if self.is(0, "{") {
                    self.skip_group()?;
                }
            }
            return Ok(BaseSyn::Named(format!("enum {}", name.unwrap_or_default())));
        }
        if self.is(0, ":") {
            while !self.at_end() && !self.is(0, "{") && !self.is(0, ";") {
                self.pos += 1;
            }
        }
        if !self.is(0, "{") {
            let name = name.ok_or_else(|| {
                msg::expected("a struct name or body", &self.found()).at(self.here())
            })?;
            return Ok(BaseSyn::Named(name));
        }
        let loc = self.loc_at(start);
        let mut def = self.struct_body(name.clone(), namespace, kw == "union", loc, depth)?;
        def.align = def.align.or(sp.align);
        match name {
            Some(n) => {
                self.items.push(Item::Struct(def));
                Ok(BaseSyn::Named(n))
            }
            None => Ok(BaseSyn::Inline(Box::new(def))),
        }
    }
}

/// Combines builtin type keywords (`unsigned long long int`) into a base type.
fn builtin(words: &[&str]) -> Result<BaseSyn, Diagnostic> {
    let has = |w: &str| words.contains(&w);
    let longs = words.iter().filter(|w| **w == "long").count();
    let unsigned = has("unsigned");
    let spelled = words.join(" ");
    let scalar = if has("void") {
        return Ok(BaseSyn::Void);
    } else if has("bool") || has("_Bool") {
        Scalar::Bool
    } else if has("float") {
        Scalar::F32
    } else if has("double") && longs == 0 {
        Scalar::F64
    } else if has("double") || has("__int128") {
        return Err(msg::unsupported_type(
            &spelled,
            "no Rust type has its layout on the GPU",
        ));
    } else if has("char") {
        if unsigned { Scalar::U8 } else { Scalar::I8 }
    } else if has("short") {
        if unsigned { Scalar::U16 } else { Scalar::I16 }
    } else if longs > 0 {
        if unsigned { Scalar::U64 } else { Scalar::I64 }
    } else if unsigned {
        Scalar::U32
    } else {
        Scalar::I32
    };
    Ok(BaseSyn::Scalar(scalar))
}

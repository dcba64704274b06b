//! Declaration specifiers: qualifiers, storage, CUDA memory spaces, attributes and
//! the base type, including `struct`/`union`/`enum` specifiers met on the way.

use super::cursor::{PResult, Parser};
use super::keywords::{IGNORED, TYPE_WORDS, builtin, is_keyword};
use super::{BaseSyn, ConstSyn, EnumSyn, Item};
use crate::diagnostics::front as msg;
use crate::front::lexer::TokKind;
use crate::model::{KernelAttrs, Linkage, Qualifiers};

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
    pub(super) packed: bool,
    pub(super) quals: Qualifiers,
    pub(super) base: Option<BaseSyn>,
    words: Vec<&'static str>,
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
                        // A member of a template's instance: `vec4<T>::Type`.
                        while self.is(0, "::") && self.is_kind(1, TokKind::Ident) {
                            name.push_str("::");
                            name.push_str(self.text(1));
                            self.pos += 2;
                        }
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

    /// Reads the rest of an enumeration (`: underlying { ... }`): a named one is recorded
    /// with its underlying type; an anonymous one stands for its underlying type.
    fn enumeration(
        &mut self,
        name: Option<String>,
        namespace: &[String],
        start: usize,
    ) -> PResult<BaseSyn> {
        let mut underlying = BaseSyn::Scalar(crate::model::Scalar::I32);
        if self.eat(":") {
            let from = self.pos;
            while !self.at_end() && !self.is(0, "{") && !self.is(0, ";") && !self.is(0, ")") {
                self.pos += 1;
            }
            let spelled = self.spelled(from, self.pos);
            let words: Vec<&str> = spelled.split_whitespace().collect();
            underlying = if words.iter().all(|w| is_keyword(w)) {
                builtin(&words).map_err(|d| d.at(self.loc_at(from)))?
            } else {
                BaseSyn::Named(spelled.clone())
            };
        }
        let mut enumerators = Vec::new();
        if self.is(0, "{") {
            let open = self.pos;
            self.skip_group()?;
            enumerators = self.enumerators(open, self.pos, name.as_deref(), namespace);
        }
        let Some(name) = name else {
            return Ok(underlying);
        };
        self.items.push(Item::Enum(EnumSyn {
            name: name.clone(),
            namespace: namespace.to_vec(),
            underlying,
            enumerators,
            loc: self.loc_at(start),
        }));
        Ok(BaseSyn::Named(name))
    }

    /// Records the enumerators of the body between `open` (`{`) and `end` (after `}`) as
    /// constants: each with its value as written, or one more than the one before. Those of
    /// a scoped enum (`enum class Mode`) are named `Mode::A`; those of an unscoped one are
    /// also reachable that way. Returns the enumerators' names.
    fn enumerators(
        &mut self,
        open: usize,
        end: usize,
        name: Option<&str>,
        namespace: &[String],
    ) -> Vec<String> {
        let mut names = Vec::new();
        let scoped = open >= 2 && {
            let before: Vec<&str> = (open.saturating_sub(6)..open)
                .map(|i| self.toks[i].text(self.src))
                .collect();
            before
                .windows(2)
                .any(|w| w[0] == "enum" && matches!(w[1], "class" | "struct"))
        };
        let mut previous: Option<String> = None;
        let mut i = open + 1;
        let close = end.saturating_sub(1);
        while i < close {
            // One enumerator: `NAME [= value]` up to a comma at depth 0.
            let from = i;
            let mut depth = 0usize;
            while i < close {
                match self.toks[i].text(self.src) {
                    "(" | "[" | "{" => depth += 1,
                    ")" | "]" | "}" => depth = depth.saturating_sub(1),
                    "," if depth == 0 => break,
                    _ => {}
                }
                i += 1;
            }
            let to = i;
            i += 1;
            if from >= to || self.toks[from].kind != TokKind::Ident {
                continue;
            }
            let ident = self.toks[from].text(self.src).to_owned();
            names.push(ident.clone());
            let value = if to > from + 2 && self.toks[from + 1].text(self.src) == "=" {
                self.spelled(from + 2, to)
            } else {
                match &previous {
                    Some(p) => format!("({p}) + 1"),
                    None => "0".to_owned(),
                }
            };
            let qualified = name.map(|n| format!("{n}::{ident}"));
            let own = if scoped {
                qualified.clone()
            } else {
                Some(ident.clone())
            };
            if let Some(own) = &own {
                self.items.push(Item::Constant(ConstSyn {
                    name: own.clone(),
                    namespace: namespace.to_vec(),
                    value: value.clone(),
                }));
            }
            if !scoped && let Some(q) = &qualified {
                self.items.push(Item::Constant(ConstSyn {
                    name: q.clone(),
                    namespace: namespace.to_vec(),
                    value: value.clone(),
                }));
            }
            previous = own;
        }
        names
    }

    /// Reads `: public B, C<int>` up to the body: the base classes' names, or why they
    /// cannot be laid out (a virtual base).
    fn base_list(&mut self) -> Result<Vec<String>, String> {
        self.pos += 1;
        let mut bases = Vec::new();
        let mut virtual_base = false;
        let mut from = self.pos;
        while !self.at_end() && !self.is(0, "{") && !self.is(0, ";") {
            match self.text(0) {
                "virtual" => virtual_base = true,
                "," => {
                    bases.push(self.base_name(from, self.pos));
                    from = self.pos + 1;
                }
                "<" => {
                    if self.skip_angles().is_err() {
                        return Err("its base classes could not be read".to_owned());
                    }
                    continue;
                }
                _ => {}
            }
            self.pos += 1;
        }
        bases.push(self.base_name(from, self.pos));
        if virtual_base {
            return Err("it has a virtual base class".to_owned());
        }
        Ok(bases.into_iter().filter(|b| !b.is_empty()).collect())
    }

    /// One base class's name between token indices, access words dropped.
    fn base_name(&self, from: usize, to: usize) -> String {
        let words = ["public", "protected", "private", "virtual"];
        let start = (from..to)
            .find(|i| !words.contains(&self.toks[*i].text(self.src)))
            .unwrap_or(to);
        self.spelled(start, to)
    }

    /// Records a struct met in a specifier and returns the base it names.
    fn elaborated(&mut self, namespace: &[String], depth: usize) -> PResult<BaseSyn> {
        let kw = self.text(0);
        let start = self.pos;
        self.pos += 1;
        if kw == "enum" && (self.is(0, "class") || self.is(0, "struct")) {
            self.pos += 1;
        }
        let mut sp = Specs::default();
        while self.attribute(&mut sp)? {}
        let name = if self.is_kind(0, TokKind::Ident) {
            let mut name = self.qualified_name()?.0.join("::");
            if self.is(0, "<") {
                // A specialization (`struct vec4<float> { ... }`) or an elaborated
                // `struct pair<int>`: the arguments are part of the name.
                let start = self.pos;
                self.skip_angles()?;
                name.push_str(&self.spelled(start, self.pos));
            }
            Some(name)
        } else {
            None
        };
        while self.attribute(&mut sp)? {}
        if kw == "enum" {
            return self.enumeration(name, namespace, start);
        }
        let bases = if self.is(0, ":") {
            self.base_list()
        } else {
            Ok(Vec::new())
        };
        if !self.is(0, "{") {
            let name = name.ok_or_else(|| {
                msg::expected("a struct name or body", &self.found()).at(self.here())
            })?;
            return Ok(BaseSyn::Named(name));
        }
        let loc = self.loc_at(start);
        let mut def = self.struct_body(name.clone(), namespace, kw == "union", loc, depth)?;
        // Attributes after the body (`} __attribute__((packed, aligned(8)))`) are the
        // struct's too.
        while self.attribute(&mut sp)? {}
        def.align = def.align.or(sp.align);
        def.packed |= sp.packed;
        match bases {
            Ok(b) => def.bases = b,
            Err(why) => def.no_layout = Some(why),
        }
        match name {
            Some(n) => {
                self.items.push(Item::Struct(def));
                Ok(BaseSyn::Named(n))
            }
            None => Ok(BaseSyn::Inline(Box::new(def))),
        }
    }
}

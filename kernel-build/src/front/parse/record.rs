//! Struct bodies, typedefs, alias declarations and `__constant__`/`__device__` globals.

use super::cursor::{MAX_DEPTH, PResult, Parser};
use super::items::Scope;
use super::keywords::ATTRIBUTE_CALLS;
use super::{FieldSyn, Item, StructSyn, TParam, TypedefSyn, VarSyn};
use crate::diagnostics::{Diagnostic, front as msg};
use crate::model::SourceLoc;

impl Parser<'_> {
    /// Reads `{ fields }` of a struct, class or union (the cursor is at `{`).
    pub(super) fn struct_body(
        &mut self,
        name: Option<String>,
        namespace: &[String],
        is_union: bool,
        loc: Option<SourceLoc>,
        depth: usize,
    ) -> PResult<StructSyn> {
        if depth > MAX_DEPTH {
            return Err(crate::diagnostics::front::nested_too_deeply("structs").at(self.here()));
        }
        let open = self.expect("{")?;
        let mut def = StructSyn {
            name: name.clone(),
            namespace: namespace.to_vec(),
            is_union,
            align: None,
            pack: self.pack_at(self.pos),
            packed: false,
            fields: Vec::new(),
            bases: Vec::new(),
            no_layout: None,
            member_types: Vec::new(),
            loc,
        };
        let mut inner_ns = namespace.to_vec();
        inner_ns.push(name.clone().unwrap_or_else(|| "(anonymous)".to_string()));
        // The first data member that could not be read: the struct has no known layout.
        let mut broken: Option<Diagnostic> = None;
        loop {
            if self.at_end() {
                return Err(msg::expected("`}` to close this struct", "end of input")
                    .at(self.loc_of(&open)));
            }
            if self.eat("}") {
                return match broken {
                    Some(d) => Err(d),
                    None => Ok(def),
                };
            }
            match self.text(0) {
                ";" => self.pos += 1,
                "public" | "private" | "protected" if self.is(1, ":") => self.pos += 2,
                // Member types (`typedef float4 Type;`, `using T = int;`): known as
                // `S::Type`, what `typename vec4<float>::Type` names.
                "typedef" | "using" => {
                    let before = self.pos;
                    let scope = Scope {
                        namespace: inner_ns.clone(),
                        linkage: crate::model::Linkage::Cxx,
                    };
                    let read = if self.is(0, "typedef") {
                        self.typedef(&scope, depth + 1)
                    } else if self.is(2, "=") {
                        self.alias(&scope)
                    } else {
                        Err(crate::diagnostics::front::not_an_alias())
                    };
                    if read.is_err() {
                        self.pos = before;
                        self.skip_decl();
                    }
                }
                "static" | "friend" | "template" | "static_assert" | "operator" | "~" => {
                    self.skip_decl();
                }
                "virtual" => {
                    def.no_layout
                        .get_or_insert_with(|| "it has virtual functions".to_owned());
                    self.skip_decl();
                }
                _ if self.is_member_function(self.pos) => self.skip_decl(),
                _ => {
                    let before = self.pos;
                    if let Err(d) = self.member(&mut def, &inner_ns, depth) {
                        // A member function (constructor, operator, method) the
                        // declarator cannot read has no layout to lose: skip it. A data
                        // member makes the struct's layout unknown.
                        let method = self.is_member_function(before);
                        self.pos = before;
                        self.skip_decl();
                        if !method && broken.is_none() {
                            broken = Some(d);
                        }
                    }
                    if self.pos == before {
                        self.pos += 1;
                    }
                }
            }
        }
    }

    /// Whether the member starting at `from` declares a function: a `(` at the top level
    /// before its end that does not open a declarator such as `(*fp)`.
    fn is_member_function(&self, from: usize) -> bool {
        let mut i = from;
        while let Some(t) = self.toks.get(i) {
            match t.text(self.src) {
                "operator" => return true,
                ";" | "{" | "}" | "=" => return false,
                // An array extent (`int v[(N)]`) holds no parameter list.
                "[" => {
                    i = self.group_end(i);
                    continue;
                }
                "(" => {
                    let prev = i.checked_sub(1).and_then(|p| self.toks.get(p));
                    if prev.is_some_and(|t| ATTRIBUTE_CALLS.contains(&t.text(self.src))) {
                        // `__align__(16)`, `alignas(8)`: an attribute, not parameters.
                        i = self.group_end(i);
                        continue;
                    }
                    let next = self.toks.get(i + 1).map(|t| t.text(self.src));
                    return !matches!(next, Some("*" | "&" | "^"));
                }
                "<" => {
                    // Template arguments of a member's type: step over them.
                    let mut depth = 0usize;
                    while let Some(t) = self.toks.get(i) {
                        match t.text(self.src) {
                            "<" => depth += 1,
                            ">" => depth = depth.saturating_sub(1),
                            ">>" => depth = depth.saturating_sub(2),
                            ";" | "{" | "}" => return false,
                            _ => {}
                        }
                        i += 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        false
    }

    /// One member declaration: fields, or a method that is skipped.
    fn member(&mut self, def: &mut StructSyn, inner_ns: &[String], depth: usize) -> PResult<()> {
        let start = self.pos;
        let mut sp = self.decl_specs(inner_ns, depth + 1)?;
        let spec_end = self.pos;
        loop {
            let d = self.declarator(&mut sp)?;
            if d.params.is_some() || sp.base.is_none() {
                // A member function, constructor or something without a layout.
                self.skip_decl();
                return Ok(());
            }
            let Some((parts, name_idx)) = d.name.or_else(|| {
                // An unnamed bit-field (`int : 3;`) only moves the bits after it.
                self.is(0, ":").then(|| (Vec::new(), self.pos))
            }) else {
                if self.eat(";") {
                    return Ok(());
                }
                return Err(msg::expected("a field name", &self.found()).at(self.here()));
            };
            let name = parts.join("::");
            let field_loc = self.loc_at(start);
            // Attributes after the declarator (`int x __attribute__((aligned(8)));`).
            let mut after = super::decl::Specs::default();
            while self.attribute(&mut after)? {}
            let bits = if self.eat(":") {
                let from = self.pos;
                while !self.at_end() && !matches!(self.text(0), "," | ";" | "}" | "=" | "{") {
                    self.pos += 1;
                }
                let width = self.spelled(from, self.pos);
                let sname = def
                    .name
                    .clone()
                    .unwrap_or_else(|| "(anonymous)".to_string());
                match crate::front::expr::eval_const(&width).and_then(|v| u64::try_from(v).ok()) {
                    Some(w) => Some(w),
                    None => return Err(msg::bitfield(&sname, &name).at(field_loc)),
                }
            } else {
                None
            };
            let mut ty = self.make_type(&sp, &d.ptrs, start, spec_end, None)?;
            let ptr_text = self.spelled(spec_end, name_idx);
            if !ptr_text.is_empty() {
                ty.written = format!("{}{}", ty.written, ptr_text);
            }
            let extents = d.extents.into_iter().map(|(e, _)| e).collect();
            let align = match (sp.align, after.align) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            def.fields.push(FieldSyn {
                ty,
                name,
                extents,
                align,
                packed: sp.packed || after.packed,
                bits,
                loc: field_loc,
            });
            self.skip_initializer()?;
            if self.eat(";") {
                return Ok(());
            }
            self.expect(",")?;
        }
    }

    /// Skips `= value` or `{ value }` after a declarator.
    fn skip_initializer(&mut self) -> PResult<()> {
        if self.is(0, "{") {
            return self.skip_group();
        }
        if self.eat("=") {
            while !self.at_end() && !self.is(0, ",") && !self.is(0, ";") && !self.is(0, "}") {
                if matches!(self.text(0), "(" | "[" | "{") {
                    self.skip_group()?;
                } else {
                    self.pos += 1;
                }
            }
        }
        Ok(())
    }

    /// `typedef <type> name, *pname, arr[4];`
    pub(super) fn typedef(&mut self, scope: &Scope, depth: usize) -> PResult<()> {
        let start = self.pos;
        let mut sp = self.decl_specs(&scope.namespace, depth + 1)?;
        let spec_end = self.pos;
        loop {
            let d = self.declarator(&mut sp)?;
            let (Some((parts, name_idx)), None) = (d.name, d.params) else {
                // Function typedefs have no layout; skip them.
                self.skip_decl();
                return Ok(());
            };
            let loc = self.loc_at(start);
            let mut ty = self.make_type(&sp, &d.ptrs, start, spec_end, None)?;
            ty.written = strip_typedef(&ty.written);
            let ptr_text = self.spelled(spec_end, name_idx);
            if !ptr_text.is_empty() {
                ty.written.push_str(&ptr_text);
            }
            let extents = d.extents.into_iter().map(|(e, _)| e).collect();
            let name = parts.join("::");
            self.items.push(Item::Typedef(TypedefSyn {
                name,
                namespace: scope.namespace.clone(),
                ty,
                extents,
                loc,
            }));
            if self.eat(";") {
                return Ok(());
            }
            self.expect(",")?;
        }
    }

    /// `using Name = type;`
    pub(super) fn alias(&mut self, scope: &Scope) -> PResult<()> {
        let loc = self.here();
        self.pos += 1;
        let name = self.expect_ident("a name")?.text(self.src).to_string();
        self.expect("=")?;
        let from = self.pos;
        let end = (from..self.toks.len())
            .find(|i| self.toks[*i].text(self.src) == ";")
            .unwrap_or(self.toks.len());
        let ty = self.type_name(&scope.namespace, from, end)?;
        self.expect(";")?;
        self.items.push(Item::Typedef(TypedefSyn {
            name,
            namespace: scope.namespace.clone(),
            ty,
            extents: Vec::new(),
            loc,
        }));
        Ok(())
    }

    /// `using Name = type;` after `template <...>`: kept as written, read when used.
    pub(super) fn alias_template(&mut self, scope: &Scope, params: Vec<TParam>) -> PResult<()> {
        self.pos += 1;
        let name = self.expect_ident("a name")?.text(self.src).to_string();
        self.expect("=")?;
        let from = self.pos;
        while !self.at_end() && !self.is(0, ";") {
            if matches!(self.text(0), "(" | "[" | "{") {
                self.skip_group()?;
            } else {
                self.pos += 1;
            }
        }
        let target = self.spelled(from, self.pos);
        self.expect(";")?;
        self.items.push(Item::AliasTemplate {
            name,
            namespace: scope.namespace.clone(),
            params,
            target,
        });
        Ok(())
    }

    /// `__constant__ float coeffs[16];`, `__device__ int a, b = 2;`
    pub(super) fn global_var(&mut self, scope: &Scope, depth: usize) -> PResult<()> {
        let start = self.pos;
        let mut sp = self.decl_specs(&scope.namespace, depth + 1)?;
        let spec_end = self.pos;
        loop {
            let d = self.declarator(&mut sp)?;
            let Some((parts, name_idx)) = d.name else {
                return Err(msg::expected("a variable name", &self.found()).at(self.here()));
            };
            let loc = self.loc_at(start);
            let mut ty = self.make_type(&sp, &d.ptrs, start, spec_end, None)?;
            let ptr_text = self.spelled(spec_end, name_idx);
            if !ptr_text.is_empty() {
                ty.written.push_str(&ptr_text);
            }
            let extents = d.extents.into_iter().map(|(e, _)| e).collect();
            let mut namespace = scope.namespace.clone();
            let mut parts = parts;
            let name = parts.pop().unwrap_or_default();
            namespace.extend(parts);
            self.items.push(Item::Var(VarSyn {
                name,
                namespace,
                constant: sp.constant,
                linkage: sp.linkage.unwrap_or(scope.linkage),
                ty,
                extents,
                loc,
            }));
            self.skip_initializer()?;
            if self.eat(";") {
                return Ok(());
            }
            self.expect(",")?;
        }
    }
}

/// Drops the `typedef` keyword from a written type.
fn strip_typedef(written: &str) -> String {
    written
        .split(' ')
        .filter(|w| *w != "typedef")
        .collect::<Vec<_>>()
        .join(" ")
}

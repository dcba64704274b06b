//! Sizes, alignments and struct layouts on 64-bit Linux, and array types built
//! from written extents.

use std::collections::HashMap;

use super::TypeEnv;
use crate::diagnostics::{Diagnostic, front as msg};
use crate::front::parse::{BaseSyn, FieldSyn, StructSyn, TypeSyn};
use crate::model::{CType, Field, Layout, SourceLoc, StructDef};

/// Size and alignment of a type, or `None` for `void` or an unknown struct.
pub fn size_align(ty: &CType, structs: &[StructDef]) -> Option<(u64, u64)> {
    size_align_by(ty, &|name| {
        structs
            .iter()
            .find(|s| s.name == name)
            .map(|s| (s.size, s.align))
    })
}

/// [`size_align`], with a struct's size and alignment given by `lookup` (an index by name
/// where there are many).
fn size_align_by(ty: &CType, lookup: &dyn Fn(&str) -> Option<(u64, u64)>) -> Option<(u64, u64)> {
    match ty {
        CType::Void => None,
        CType::Scalar(s) => Some((s.size(), s.size())),
        CType::Vector { elem, lanes } => {
            let size = elem.size() * u64::from(*lanes);
            let align = if *lanes == 3 {
                elem.size()
            } else {
                size.min(16)
            };
            Some((size, align))
        }
        CType::Struct(name) => lookup(name),
        CType::Pointer { .. } => Some((8, 8)),
        CType::Array { elem, len } => {
            let (size, align) = size_align_by(elem, lookup)?;
            Some((size.checked_mul(*len)?, align))
        }
    }
}

impl TypeEnv {
    /// Wraps `ty` in arrays for `extents` (outermost first); `what` names the declaration.
    pub fn with_extents(
        &self,
        ty: CType,
        extents: &[String],
        what: &str,
        loc: Option<SourceLoc>,
        namespace: &[String],
    ) -> Result<CType, Diagnostic> {
        let mut out = ty;
        for e in extents.iter().rev() {
            let len = self
                .eval(e, namespace)
                .and_then(|v| u64::try_from(v).ok())
                .ok_or_else(|| msg::bad_array_extent(what, e).at(loc.clone()))?;
            out = CType::Array {
                elem: Box::new(out),
                len,
            };
        }
        Ok(out)
    }

    /// Lays out a struct definition (fields resolved in `namespace`) and records it.
    pub fn add_struct(&mut self, def: &StructSyn, qualified: String) -> Result<(), Diagnostic> {
        self.add_struct_with(def, qualified, &HashMap::new())
    }

    /// [`add_struct`](Self::add_struct) with template parameters bound (a class
    /// template's instance).
    pub(super) fn add_struct_with(
        &mut self,
        def: &StructSyn,
        qualified: String,
        tparams: &HashMap<String, super::Resolved>,
    ) -> Result<(), Diagnostic> {
        if let Some(why) = &def.no_layout {
            return Err(
                msg::unsupported_type(&qualified, &format!("no C layout: {why}"))
                    .at(def.loc.clone()),
            );
        }
        let mut fields = Vec::new();
        let (mut offset, mut align, mut size) = (0u64, def.align.unwrap_or(1).max(1), 0u64);
        // Fields see the struct's own member types and enumerations first.
        let mut scope: Vec<String> = def.namespace.clone();
        if let Some(name) = &def.name {
            let own = name.split('<').next().unwrap_or(name);
            scope.push(own.rsplit("::").next().unwrap_or(own).to_owned());
        }
        // Base classes come first, as fields named `base` (`base0`, `base1`, … for
        // several); an empty base takes no room (the empty base optimisation).
        let mut all_fields = Vec::new();
        for (i, b) in def.bases.iter().enumerate() {
            let ty = TypeSyn {
                base: BaseSyn::Named(b.clone()),
                base_quals: Default::default(),
                ptrs: Vec::new(),
                written: b.clone(),
                loc: def.loc.clone(),
            };
            self.instantiate_in(&ty, &scope, tparams);
            let (resolved, _) = self.resolve(&ty, &def.namespace, tparams)?;
            let empty = match &resolved {
                CType::Struct(n) => self
                    .structs
                    .iter()
                    .any(|s| s.name == *n && s.fields.is_empty()),
                _ => false,
            };
            if !empty {
                let name = if def.bases.len() == 1 {
                    "base".to_owned()
                } else {
                    format!("base{i}")
                };
                all_fields.push(FieldSyn {
                    ty,
                    name,
                    extents: Vec::new(),
                    loc: def.loc.clone(),
                });
            }
        }
        all_fields.extend(def.fields.iter().cloned());
        for f in &all_fields {
            if let BaseSyn::Inline(inner) = &f.ty.base {
                let inner_name = inner
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("{qualified}_{}", f.name));
                self.add_struct_with(inner, inner_name, tparams)?;
            }
            let mut fty = f.ty.clone();
            if let BaseSyn::Inline(inner) = &f.ty.base
                && inner.name.is_none()
            {
                fty.base = BaseSyn::Named(format!("{qualified}_{}", f.name));
            }
            if self.in_progress.is_empty() {
                // A template's own fields were laid out by `lay_out`, with its nesting.
                self.instantiate_in(&fty, &scope, tparams);
            }
            let (ty, _) = self.resolve(&fty, &scope, tparams)?;
            let ty = self.with_extents(ty, &f.extents, &f.name, f.loc.clone(), &scope)?;
            let (fsize, falign) =
                size_align_by(&ty, &|n| self.structs.get(n).map(|s| (s.size, s.align)))
                    .ok_or_else(|| {
                        msg::unsupported_type(
                            &f.ty.written,
                            &format!("field `{}` has no size", f.name),
                        )
                        .at(f.loc.clone())
                    })?;
            let field_offset = if def.is_union {
                0
            } else {
                offset.div_ceil(falign) * falign
            };
            offset = field_offset + fsize;
            size = size.max(offset);
            align = align.max(falign);
            fields.push(Field {
                name: f.name.clone(),
                ty,
                layout: Layout {
                    offset: field_offset,
                    size: fsize,
                    align: falign,
                },
            });
        }
        // An empty C++ struct still occupies one byte.
        let size = size.max(1).div_ceil(align) * align;
        self.structs.define(StructDef {
            name: qualified,
            fields,
            size,
            align,
            is_union: def.is_union,
            opaque: false,
            name_only: false,
            rust_path: None,
            loc: def.loc.clone(),
        });
        Ok(())
    }
}

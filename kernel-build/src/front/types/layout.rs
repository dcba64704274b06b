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
                    align: None,
                    packed: false,
                    bits: None,
                    loc: def.loc.clone(),
                });
            }
        }
        all_fields.extend(def.fields.iter().cloned());
        // Packing: `#[pragma pack(N)]` caps every field's alignment at N;
        // `__attribute__((packed))` (on the struct or a field) makes it 1 unless the field
        // asks for more.
        let cap = |natural: u64, asked: Option<u64>, packed: bool| -> u64 {
            let a = if packed {
                asked.unwrap_or(1)
            } else {
                asked.map_or(natural, |a| a.max(natural))
            };
            def.pack.map_or(a, |n| a.min(n.max(1))).max(1)
        };
        // Consecutive bit-fields share storage: one field of bytes covering them
        // (`__bits0`, `__bits1`, …), at the bytes the System V rules give them.
        let mut bits: Option<(u64, u64)> = None; // (first bit, next bit)
        let mut bit_groups = 0usize;
        let close_bits = |bits: &mut Option<(u64, u64)>,
                          offset: &mut u64,
                          size: &mut u64,
                          groups: &mut usize,
                          fields: &mut Vec<Field>| {
            if let Some((first, next)) = bits.take() {
                let start = first / 8;
                let end = next.div_ceil(8);
                if end > start {
                    fields.push(Field {
                        name: format!("{}{}", crate::model::BIT_STORAGE, *groups),
                        ty: CType::Array {
                            elem: Box::new(CType::Scalar(crate::model::Scalar::U8)),
                            len: end - start,
                        },
                        layout: Layout {
                            offset: start,
                            size: end - start,
                            align: 1,
                        },
                    });
                    *groups += 1;
                }
                *offset = (*offset).max(end);
                *size = (*size).max(end);
            }
        };
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
            let packed = def.packed || f.packed;
            let effective = cap(falign, f.align, packed);
            if let Some(width) = f.bits {
                if def.is_union {
                    return Err(msg::bitfield(
                        def.name.as_deref().unwrap_or("(anonymous)"),
                        &f.name,
                    )
                    .at(f.loc.clone()));
                }
                let unit = effective * 8;
                let mut at = bits.map_or(offset * 8, |(_, next)| next);
                // A zero-width bit-field, or one that would straddle a unit of its type,
                // starts at the next unit.
                if width == 0 || (!packed && (at / unit) * unit + fsize * 8 < at + width) {
                    at = at.div_ceil(unit) * unit;
                }
                let first = bits.map_or(at, |(first, _)| first);
                bits = Some((first, at + width));
                if !f.name.is_empty() && !packed {
                    align = align.max(effective);
                }
                continue;
            }
            close_bits(
                &mut bits,
                &mut offset,
                &mut size,
                &mut bit_groups,
                &mut fields,
            );
            let field_offset = if def.is_union {
                0
            } else {
                offset.div_ceil(effective) * effective
            };
            offset = field_offset + fsize;
            size = size.max(offset);
            align = align.max(effective);
            fields.push(Field {
                name: f.name.clone(),
                ty,
                layout: Layout {
                    offset: field_offset,
                    size: fsize,
                    // The type's own alignment; where the field lies is `offset`.
                    align: falign,
                },
            });
        }
        close_bits(
            &mut bits,
            &mut offset,
            &mut size,
            &mut bit_groups,
            &mut fields,
        );
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

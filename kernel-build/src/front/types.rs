//! The C type model on 64-bit Linux: names the CUDA headers provide, typedefs and
//! structs of the user's files, sizes, alignments and struct layouts.
//!
//! CUDA vector types follow `vector_types.h`: one-, two- and four-lane types are
//! aligned to their size up to 16 bytes (`float2`: 8, `int4`: 16, `double2`: 16,
//! `double4`: 16), three-lane types to their lane (`float3`: 4). `__half2` and
//! `__nv_bfloat162` are two-lane vectors of 2-byte lanes.

use std::collections::HashMap;

use super::expr::eval_const;
use super::parse::{BaseSyn, StructSyn, TypeSyn};
use crate::diagnostics::{Diagnostic, front as msg};
use crate::model::{CType, Field, Layout, Qualifiers, Scalar, SourceLoc, StructDef};

/// Size and alignment of a type, or `None` for `void` or an unknown struct.
///
/// ```
/// use kernel_build::front::types::size_align;
/// use kernel_build::model::{CType, Scalar};
/// assert_eq!(size_align(&CType::Vector { elem: Scalar::F32, lanes: 3 }, &[]), Some((12, 4)));
/// assert_eq!(size_align(&CType::Vector { elem: Scalar::F64, lanes: 4 }, &[]), Some((32, 16)));
/// ```
pub fn size_align(ty: &CType, structs: &[StructDef]) -> Option<(u64, u64)> {
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
        CType::Struct(name) => structs
            .iter()
            .find(|s| s.name == *name)
            .map(|s| (s.size, s.align)),
        CType::Pointer { .. } => Some((8, 8)),
        CType::Array { elem, len } => {
            let (size, align) = size_align(elem, structs)?;
            Some((size.checked_mul(*len)?, align))
        }
    }
}

/// The type a name from the CUDA or C headers stands for (`size_t`, `int64_t`,
/// `__half`, `float4`); `std::` and `::` prefixes are accepted.
///
/// ```
/// use kernel_build::front::types::header_type;
/// use kernel_build::model::{CType, Scalar};
/// assert_eq!(header_type("std::uint32_t"), Some(CType::Scalar(Scalar::U32)));
/// assert_eq!(header_type("uchar4"), Some(CType::Vector { elem: Scalar::U8, lanes: 4 }));
/// assert_eq!(header_type("my_t"), None);
/// ```
pub fn header_type(name: &str) -> Option<CType> {
    let name = name.trim_start_matches("::");
    let name = name.strip_prefix("std::").unwrap_or(name);
    let scalar = match name {
        "int8_t" => Some(Scalar::I8),
        "int16_t" => Some(Scalar::I16),
        "int32_t" => Some(Scalar::I32),
        "int64_t" | "intmax_t" => Some(Scalar::I64),
        "uint8_t" => Some(Scalar::U8),
        "uint16_t" => Some(Scalar::U16),
        "uint32_t" => Some(Scalar::U32),
        "uint64_t" | "uintmax_t" => Some(Scalar::U64),
        "size_t" | "uintptr_t" => Some(Scalar::Usize),
        "ptrdiff_t" | "ssize_t" | "intptr_t" => Some(Scalar::Isize),
        "__half" | "half" => Some(Scalar::F16),
        "__nv_bfloat16" | "nv_bfloat16" => Some(Scalar::BF16),
        _ => None,
    };
    if let Some(s) = scalar {
        return Some(CType::Scalar(s));
    }
    match name {
        "__half2" | "half2" => {
            return Some(CType::Vector {
                elem: Scalar::F16,
                lanes: 2,
            });
        }
        "__nv_bfloat162" | "nv_bfloat162" => {
            return Some(CType::Vector {
                elem: Scalar::BF16,
                lanes: 2,
            });
        }
        "dim3" => {
            return Some(CType::Vector {
                elem: Scalar::U32,
                lanes: 3,
            });
        }
        _ => {}
    }
    let name = name.strip_suffix("_16a").unwrap_or(name);
    let lanes = name
        .chars()
        .last()?
        .to_digit(10)
        .filter(|l| (1..=4).contains(l))? as u8;
    let elem = match &name[..name.len() - 1] {
        "char" => Scalar::I8,
        "uchar" => Scalar::U8,
        "short" => Scalar::I16,
        "ushort" => Scalar::U16,
        "int" => Scalar::I32,
        "uint" => Scalar::U32,
        "long" | "longlong" => Scalar::I64,
        "ulong" | "ulonglong" => Scalar::U64,
        "float" => Scalar::F32,
        "double" => Scalar::F64,
        _ => return None,
    };
    Some(CType::Vector { elem, lanes })
}

/// The C spelling of a resolved type (`const float*`, `unsigned long long`, `float2`).
///
/// ```
/// use kernel_build::front::types::c_spelling;
/// use kernel_build::model::{CType, Qualifiers, Scalar};
/// let t = CType::Pointer { pointee: Box::new(CType::Scalar(Scalar::F32)), pointee_quals: Qualifiers { is_const: true, is_volatile: false } };
/// assert_eq!(c_spelling(&t), "const float*");
/// ```
pub fn c_spelling(ty: &CType) -> String {
    match ty {
        CType::Void => "void".into(),
        CType::Scalar(s) => scalar_spelling(*s).into(),
        CType::Vector { elem, lanes } => vector_spelling(*elem, *lanes),
        CType::Struct(name) => name.clone(),
        CType::Pointer {
            pointee,
            pointee_quals,
        } => {
            let inner = c_spelling(pointee);
            let q = quals_prefix(*pointee_quals);
            if matches!(**pointee, CType::Pointer { .. }) {
                let q = q.trim_end();
                if q.is_empty() {
                    format!("{inner}*")
                } else {
                    format!("{inner} {q}*")
                }
            } else {
                format!("{q}{inner}*")
            }
        }
        CType::Array { .. } => {
            // C writes the outermost extent first: `int[3][2]` is 3 arrays of 2.
            let mut dims = String::new();
            let mut t = ty;
            while let CType::Array { elem, len } = t {
                dims.push_str(&format!("[{len}]"));
                t = elem;
            }
            format!("{}{dims}", c_spelling(t))
        }
    }
}

fn quals_prefix(q: Qualifiers) -> String {
    let mut s = String::new();
    if q.is_const {
        s.push_str("const ");
    }
    if q.is_volatile {
        s.push_str("volatile ");
    }
    s
}

/// The canonical C name of a scalar.
///
/// ```
/// assert_eq!(kernel_build::front::types::scalar_spelling(kernel_build::model::Scalar::Usize), "size_t");
/// ```
pub fn scalar_spelling(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "bool",
        Scalar::I8 => "char",
        Scalar::I16 => "short",
        Scalar::I32 => "int",
        Scalar::I64 => "long long",
        Scalar::U8 => "unsigned char",
        Scalar::U16 => "unsigned short",
        Scalar::U32 => "unsigned int",
        Scalar::U64 => "unsigned long long",
        Scalar::Usize => "size_t",
        Scalar::Isize => "ptrdiff_t",
        Scalar::F32 => "float",
        Scalar::F64 => "double",
        Scalar::F16 => "__half",
        Scalar::BF16 => "__nv_bfloat16",
    }
}

fn vector_spelling(elem: Scalar, lanes: u8) -> String {
    let base = match elem {
        Scalar::I8 | Scalar::Bool => "char",
        Scalar::U8 => "uchar",
        Scalar::I16 => "short",
        Scalar::U16 => "ushort",
        Scalar::I32 => "int",
        Scalar::U32 => "uint",
        Scalar::I64 | Scalar::Isize => "longlong",
        Scalar::U64 | Scalar::Usize => "ulonglong",
        Scalar::F32 => "float",
        Scalar::F64 => "double",
        Scalar::F16 => return "__half2".into(),
        Scalar::BF16 => return "__nv_bfloat162".into(),
    };
    format!("{base}{lanes}")
}

/// A resolved type and the qualifiers of its top level.
pub type Resolved = (CType, Qualifiers);

/// Typedefs and structs known so far, in declaration order.
#[derive(Debug, Default)]
pub struct TypeEnv {
    typedefs: HashMap<String, Resolved>,
    /// Struct definitions with computed layouts.
    pub structs: Vec<StructDef>,
}

impl TypeEnv {
    /// Resolves `ty` seen inside `namespace`; `tparams` binds template type parameters.
    pub fn resolve(
        &self,
        ty: &TypeSyn,
        namespace: &[String],
        tparams: &HashMap<String, Resolved>,
    ) -> Result<Resolved, Diagnostic> {
        let (mut cur, mut quals) = match &ty.base {
            BaseSyn::Void => (CType::Void, Qualifiers::default()),
            BaseSyn::Scalar(s) => (CType::Scalar(*s), Qualifiers::default()),
            BaseSyn::Named(name) => self.named(name, namespace, tparams).ok_or_else(|| {
                if let Some(e) = name.strip_prefix("enum ") {
                    msg::unsupported_type(
                        &format!("enum {e}"),
                        "enums have no fixed layout here; use a fixed-width integer type",
                    )
                } else {
                    msg::unknown_type(name)
                }
                .at(ty.loc.clone())
            })?,
            BaseSyn::Inline(def) => {
                let name = def
                    .name
                    .clone()
                    .unwrap_or_else(|| "(anonymous struct)".to_string());
                (CType::Struct(name), Qualifiers::default())
            }
        };
        quals.is_const |= ty.base_quals.is_const;
        quals.is_volatile |= ty.base_quals.is_volatile;
        for q in &ty.ptrs {
            cur = CType::Pointer {
                pointee: Box::new(cur),
                pointee_quals: quals,
            };
            quals = *q;
        }
        Ok((cur, quals))
    }

    fn named(
        &self,
        name: &str,
        namespace: &[String],
        tparams: &HashMap<String, Resolved>,
    ) -> Option<Resolved> {
        if let Some(r) = tparams.get(name) {
            return Some(r.clone());
        }
        let name = name.trim_start_matches("::");
        for depth in (0..=namespace.len()).rev() {
            let mut q = namespace[..depth].join("::");
            if !q.is_empty() {
                q.push_str("::");
            }
            q.push_str(name);
            if let Some(r) = self.typedefs.get(&q) {
                return Some(r.clone());
            }
            if self.structs.iter().any(|s| s.name == q) {
                return Some((CType::Struct(q), Qualifiers::default()));
            }
        }
        header_type(name).map(|t| (t, Qualifiers::default()))
    }

    /// An environment with only these structs (no typedefs).
    pub fn with_structs(structs: Vec<StructDef>) -> Self {
        TypeEnv {
            typedefs: HashMap::new(),
            structs,
        }
    }

    /// Records `typedef <ty> name<extents>` declared in `namespace`.
    pub fn add_typedef(&mut self, qualified: String, resolved: Resolved) {
        self.typedefs.insert(qualified, resolved);
    }

    /// Wraps `ty` in arrays for `extents` (outermost first); `what` names the declaration.
    pub fn with_extents(
        ty: CType,
        extents: &[String],
        what: &str,
        loc: Option<SourceLoc>,
    ) -> Result<CType, Diagnostic> {
        let mut out = ty;
        for e in extents.iter().rev() {
            let len = eval_const(e)
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
        let mut fields = Vec::new();
        let (mut offset, mut align, mut size) = (0u64, def.align.unwrap_or(1).max(1), 0u64);
        let scope: Vec<String> = def.namespace.clone();
        for f in &def.fields {
            if let BaseSyn::Inline(inner) = &f.ty.base {
                let inner_name = inner
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("{qualified}_{}", f.name));
                self.add_struct(inner, inner_name)?;
            }
            let mut fty = f.ty.clone();
            if let BaseSyn::Inline(inner) = &f.ty.base
                && inner.name.is_none()
            {
                fty.base = BaseSyn::Named(format!("{qualified}_{}", f.name));
            }
            let (ty, _) = self.resolve(&fty, &scope, &HashMap::new())?;
            let ty = Self::with_extents(ty, &f.extents, &f.name, f.loc.clone())?;
            let (fsize, falign) = size_align(&ty, &self.structs).ok_or_else(|| {
                msg::unsupported_type(&f.ty.written, &format!("field `{}` has no size", f.name))
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
        self.structs.retain(|s| s.name != qualified);
        self.structs.push(StructDef {
            name: qualified,
            fields,
            size,
            align,
            loc: def.loc.clone(),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_alignments_follow_cuda() {
        let cases = [
            ("char2", 2, 2),
            ("char3", 3, 1),
            ("short4", 8, 8),
            ("int4", 16, 16),
            ("float2", 8, 8),
            ("float3", 12, 4),
            ("double2", 16, 16),
            ("longlong4", 32, 16),
            ("double4_16a", 32, 16),
            ("__half2", 4, 4),
        ];
        for (name, size, align) in cases {
            assert_eq!(
                size_align(&header_type(name).unwrap(), &[]),
                Some((size, align)),
                "{name}"
            );
        }
        assert!(header_type("float5").is_none() && header_type("double4_32a").is_none());
    }

    #[test]
    fn spelling_of_nested_pointers() {
        let f = CType::Scalar(Scalar::F32);
        let pcf = CType::Pointer {
            pointee: Box::new(f),
            pointee_quals: Qualifiers {
                is_const: true,
                is_volatile: false,
            },
        };
        let pp = CType::Pointer {
            pointee: Box::new(pcf),
            pointee_quals: Qualifiers {
                is_const: true,
                is_volatile: false,
            },
        };
        assert_eq!(c_spelling(&pp), "const float* const*");
        let nested = CType::Array {
            elem: Box::new(CType::Array {
                elem: Box::new(CType::Scalar(Scalar::I32)),
                len: 2,
            }),
            len: 3,
        };
        assert_eq!(c_spelling(&nested), "int[3][2]");
    }
}

//! Every layout a typed stub relies on, held against the compiler's: the table the unit's
//! own compile measured ([`crate::compile::layouts`]) is read from each image, and every
//! struct, union, class template instance and enum a kernel passes or points to (nested
//! members too) must have the size, the alignment, the field offsets and sizes and the
//! enumerator values the front end read. A kernel that uses a type laid out otherwise, or
//! one the compiler did not measure, goes by name with the reason; it is never typed over
//! a layout the compiler did not give.

use std::collections::HashMap;

use crate::compile::layouts::{
    self, Item, ItemKind, Measured, Measurement, Plan, Table, UNMEASURED,
};
use crate::diagnostics::front as msg;
use crate::model::{CType, EnumDef, LayoutProblem, ModuleInfo, StructDef};

/// What the compiler said of one type.
enum Verdict {
    /// Measured in these images.
    Measured(Vec<(String, Measured)>),
    /// Not measured, with why.
    Unmeasured(String),
}

/// Holds every struct and enum of `info` (opaque and named-only structs were measured by the
/// compiler already, or hold no value) against the tables (`rejected`: the plan's items
/// nvcc refused, with its reason), recording each one the compiler contradicts or did not
/// measure in [`ModuleInfo::layout_problems`].
pub(crate) fn measure(info: &mut ModuleInfo, measurements: &[Measurement]) {
    let mut verdicts: HashMap<&str, (&Item, Verdict)> = HashMap::new();
    for m in measurements {
        for (name, verdict) in verdicts_of(&m.plan, &m.tables, &m.rejected) {
            let better = !matches!(verdicts.get(name), Some((_, Verdict::Measured(_))));
            if better {
                verdicts.insert(name, verdict);
            }
        }
    }
    record(info, &verdicts);
}

/// What `tables` and `rejected` say of each item of `plan`, by the item's name.
fn verdicts_of<'a>(
    plan: &'a Plan,
    tables: &[(String, Table)],
    rejected: &[(usize, String)],
) -> Vec<(&'a str, (&'a Item, Verdict))> {
    let mut out = Vec::new();
    for (i, item) in plan.items.iter().enumerate() {
        let verdict = if let Some((_, why)) = rejected.iter().find(|(j, _)| *j == i) {
            Verdict::Unmeasured(format!("nvcc could not measure it ({why})"))
        } else {
            let found: Vec<(String, Measured)> = tables
                .iter()
                .filter_map(|(target, t)| {
                    let (_, values) = t.iter().find(|(j, _)| *j == i)?;
                    Some((target.clone(), layouts::decode(item, values)?))
                })
                .collect();
            if found.is_empty() {
                Verdict::Unmeasured("no compiled image holds its measurement".into())
            } else {
                Verdict::Measured(found)
            }
        };
        out.push((item.name.as_str(), (item, verdict)));
    }
    out
}

/// Records the problem of every struct and enum of `info` under `verdicts`.
fn record(info: &mut ModuleInfo, verdicts: &HashMap<&str, (&Item, Verdict)>) {
    let mut problems = Vec::new();
    let mut measured = Vec::new();
    for e in &info.enums {
        match check_enum(e, verdicts.get(e.name.as_str())) {
            Some(p) => problems.push(p),
            None => measured.push(e.name.clone()),
        }
    }
    for s in &info.structs {
        if s.opaque || s.name_only || info.enums.iter().any(|e| e.name == s.name) {
            continue;
        }
        match check_struct(s, info, verdicts.get(s.name.as_str())) {
            Some(p) => problems.push(p),
            None => measured.push(s.name.clone()),
        }
    }
    for p in problems {
        if !info.layout_problems.contains(&p) {
            info.layout_problems.push(p);
        }
    }
    for m in measured {
        if !info.layouts_measured.contains(&m) {
            info.layouts_measured.push(m);
        }
    }
}

/// Moves every typed kernel of `info` that passes or points to a type the compiler did not
/// measure equal (behind pointers, in arrays, in fields) to [`ModuleInfo::untyped`], with
/// the reason, and drops the typed accessor of every global of such a type (with a note).
/// Returns how many kernels moved.
pub(crate) fn untype(info: &mut ModuleInfo) -> usize {
    let mut moved = Vec::new();
    for (index, kernel) in info.kernels.iter().enumerate() {
        let mut seen: Vec<&str> = Vec::new();
        let problem = kernel
            .params
            .iter()
            .find_map(|p| first_problem(&p.ty, info, &mut seen));
        if let Some((ty, p)) = problem {
            let d = match p {
                Some(p) if p.differs => msg::layout_differs(&kernel.name, ty, &p.why),
                Some(p) => msg::layout_unmeasured(&kernel.name, ty, &p.why),
                None => {
                    msg::layout_unmeasured(&kernel.name, ty, "no compile of the module measured it")
                }
            };
            moved.push((index, d));
        }
    }
    // A global of such a type keeps no typed accessor either.
    let mut dropped = Vec::new();
    for (index, g) in info.globals.iter().enumerate() {
        let mut seen: Vec<&str> = Vec::new();
        if let Some((ty, _)) = first_problem(&g.ty, info, &mut seen) {
            dropped.push((index, format!(
                "global `{}` has no typed accessor: its type uses `{ty}`, whose layout the compiler did not confirm",
                g.name
            )));
        }
    }
    for (index, note) in dropped.into_iter().rev() {
        info.globals.remove(index);
        info.notes.push(note);
    }
    let count = moved.len();
    for (index, d) in moved.into_iter().rev() {
        let k = info.kernels.remove(index);
        info.untyped.retain(|u| u.name != k.name);
        let mut u = crate::front::unread(k.name, k.symbol, &d, k.loc.clone());
        u.param_names = k.params.iter().map(|p| p.name.clone()).collect();
        info.untyped.push(u);
    }
    count
}

/// The first type reached from `ty` that no compile measured equal (an opaque or named-only
/// struct was measured by the compiler, or holds no bytes), with what was recorded of it.
fn first_problem<'a>(
    ty: &'a CType,
    info: &'a ModuleInfo,
    seen: &mut Vec<&'a str>,
) -> Option<(&'a str, Option<&'a LayoutProblem>)> {
    if !layouts::measured_kind(ty) {
        return None;
    }
    let name = ty.struct_name()?;
    if seen.contains(&name) {
        return None;
    }
    seen.push(name);
    let problem = info.layout_problems.iter().find(|p| p.ty == name);
    // A contradiction stands even where another file measured a type of that name.
    if problem.is_some_and(|p| p.differs) {
        return Some((name, problem));
    }
    let s = info.structs.iter().find(|s| s.name == name);
    let exempt = s.is_some_and(|s| s.opaque || s.name_only);
    if !exempt && !info.layouts_measured.iter().any(|m| m == name) {
        return Some((name, problem));
    }
    s?.fields
        .iter()
        .find_map(|f| first_problem(&f.ty, info, seen))
}

fn unmeasured(ty: &str, why: impl Into<String>) -> Option<LayoutProblem> {
    Some(LayoutProblem {
        ty: ty.to_owned(),
        why: why.into(),
        differs: false,
    })
}

const NOT_NAMED: &str = "the build could not name it before compiling (the front end found it only in the compiled views)";

fn check_struct(
    s: &StructDef,
    info: &ModuleInfo,
    verdict: Option<&(&Item, Verdict)>,
) -> Option<LayoutProblem> {
    let Some((item, verdict)) = verdict else {
        return unmeasured(&s.name, NOT_NAMED);
    };
    let found = match verdict {
        Verdict::Unmeasured(why) => return unmeasured(&s.name, why.clone()),
        Verdict::Measured(found) => found,
    };
    let ItemKind::Record { fields } = &item.kind else {
        return unmeasured(&s.name, "the build measured an enumeration of that name");
    };
    for (target, m) in found {
        let mut same = m.size == s.size && m.align == s.align;
        let mut compiled_fields = Vec::new();
        for f in s.fields.iter().filter(|f| !f.is_bit_storage()) {
            let Some(j) = fields.iter().position(|(n, _)| *n == f.name) else {
                return unmeasured(
                    &s.name,
                    format!("its field `{}` was not in the table", f.name),
                );
            };
            let (off, size, via) = m.parts[j];
            let (off, size) = if off != UNMEASURED {
                (off, size)
            } else if via != UNMEASURED {
                // A base class: where its first member lies in the derived type.
                let inner =
                    f.ty.struct_name()
                        .and_then(|n| info.structs.iter().find(|d| d.name == n))
                        .and_then(|d| d.fields.first().map(|g| g.layout.offset));
                match inner {
                    Some(first) if via >= first => (via - first, f.layout.size),
                    _ => (UNMEASURED, UNMEASURED),
                }
            } else {
                return unmeasured(
                    &s.name,
                    format!(
                        "its field `{}` cannot be measured by name (a private member or a bit-field)",
                        f.name
                    ),
                );
            };
            same &= off == f.layout.offset && size == f.layout.size;
            compiled_fields.push(format!("`{}` at {off} ({size} bytes)", f.name));
        }
        if !same {
            let read: Vec<String> = s
                .fields
                .iter()
                .filter(|f| !f.is_bit_storage())
                .map(|f| {
                    format!(
                        "`{}` at {} ({} bytes)",
                        f.name, f.layout.offset, f.layout.size
                    )
                })
                .collect();
            return Some(differs(
                &s.name,
                target,
                describe(s.size, s.align, &read),
                describe(m.size, m.align, &compiled_fields),
            ));
        }
    }
    None
}

fn differs(ty: &str, target: &str, read: String, compiled: String) -> LayoutProblem {
    LayoutProblem {
        ty: ty.to_owned(),
        why: format!("the front end read {read}; the {target} compile measured {compiled}"),
        differs: true,
    }
}

fn check_enum(e: &EnumDef, verdict: Option<&(&Item, Verdict)>) -> Option<LayoutProblem> {
    let Some((item, verdict)) = verdict else {
        return unmeasured(&e.name, NOT_NAMED);
    };
    let found = match verdict {
        Verdict::Unmeasured(why) => return unmeasured(&e.name, why.clone()),
        Verdict::Measured(found) => found,
    };
    let ItemKind::Enum { variants } = &item.kind else {
        return unmeasured(&e.name, "the build measured a struct of that name");
    };
    let size = e.underlying.size();
    for (target, m) in found {
        let mut same = m.size == size && m.align == size;
        let mut compiled = Vec::new();
        for (name, value) in &e.variants {
            let Some(j) = variants.iter().position(|v| v == name) else {
                return unmeasured(
                    &e.name,
                    format!("its enumerator `{name}` was not in the table"),
                );
            };
            let got = m.parts[j].0;
            // The value as the enumeration's own type stores it.
            let bits = size * 8;
            same &= got & mask(bits) == (*value as u64) & mask(bits);
            compiled.push(format!("`{name}` = {}", sign_extend(got, bits)));
        }
        if !same {
            let read: Vec<String> = e
                .variants
                .iter()
                .map(|(n, v)| format!("`{n}` = {v}"))
                .collect();
            return Some(differs(
                &e.name,
                target,
                describe(size, size, &read),
                describe(m.size, m.align, &compiled),
            ));
        }
    }
    None
}

fn mask(bits: u64) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn sign_extend(v: u64, bits: u64) -> i64 {
    if bits >= 64 || bits == 0 {
        return v as i64;
    }
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

/// `size 16, align 8: `a` at 0 (1 bytes), …`.
fn describe(size: u64, align: u64, parts: &[String]) -> String {
    if parts.is_empty() {
        format!("size {size}, align {align}")
    } else {
        format!("size {size}, align {align}: {}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Field, Kernel, Layout, Param, Qualifiers, Scalar};

    fn field(name: &str, ty: CType, offset: u64, size: u64) -> Field {
        Field {
            name: name.into(),
            ty,
            layout: Layout {
                offset,
                size,
                align: size,
            },
        }
    }

    fn set(
        plan: &Plan,
        tables: Vec<(String, Table)>,
        rejected: Vec<(usize, String)>,
    ) -> Measurement {
        Measurement {
            plan: plan.clone(),
            tables,
            rejected,
        }
    }

    fn module() -> ModuleInfo {
        let p = StructDef {
            name: "P".into(),
            fields: vec![
                field("a", CType::Scalar(Scalar::I8), 0, 1),
                field("b", CType::Scalar(Scalar::F64), 8, 8),
            ],
            size: 16,
            align: 8,
            is_union: false,
            opaque: false,
            name_only: false,
            rust_path: None,
            loc: None,
        };
        let ptr = CType::Pointer {
            pointee: Box::new(CType::Struct("P".into())),
            pointee_quals: Qualifiers::default(),
        };
        let kernel = Kernel {
            name: "byptr".into(),
            base_name: "byptr".into(),
            symbol: "byptr".into(),
            params: vec![Param {
                name: Some("p".into()),
                ty: ptr,
                written: "P*".into(),
                grid_constant: false,
                layout: Layout {
                    offset: 0,
                    size: 8,
                    align: 8,
                },
                loc: None,
            }],
            namespace: Vec::new(),
            template_args: Vec::new(),
            linkage: crate::model::Linkage::C,
            is_static: false,
            attrs: Default::default(),
            doc: None,
            loc: None,
            images: Vec::new(),
        };
        ModuleInfo {
            kernels: vec![kernel],
            structs: vec![p],
            ..ModuleInfo::default()
        }
    }

    #[test]
    fn a_pointee_laid_out_otherwise_makes_the_kernel_go_by_name() {
        let mut info = module();
        let plan = Plan::for_model(&info);
        // nvcc under `#pragma pack(1)`: size 9, align 1, `b` at 1.
        let tables = vec![(
            "sm_90".to_owned(),
            vec![(0, vec![9, 1, 0, 1, UNMEASURED, 1, 8, UNMEASURED])],
        )];
        info.globals.push(crate::model::Global {
            name: "g".into(),
            symbol: "g".into(),
            space: crate::model::GlobalSpace::Device,
            ty: CType::Struct("P".into()),
            size: 9,
            loc: None,
        });
        measure(&mut info, &[set(&plan, tables.clone(), vec![])]);
        assert_eq!(untype(&mut info), 1);
        assert!(info.kernels.is_empty());
        assert!(info.globals.is_empty());
        assert!(info.notes[0].contains("global `g` has no typed accessor"));
        let why = &info.untyped[0].why;
        assert!(why.contains("`P`"), "{why}");
        assert!(why.contains("size 16, align 8"), "{why}");
        assert!(why.contains("size 9, align 1"), "{why}");
    }

    #[test]
    fn a_layout_the_compiler_agrees_with_stays_typed() {
        let mut info = module();
        let plan = Plan::for_model(&info);
        let tables = vec![(
            "sm_90".to_owned(),
            vec![(0, vec![16, 8, 0, 1, UNMEASURED, 8, 8, UNMEASURED])],
        )];
        measure(&mut info, &[set(&plan, tables.clone(), vec![])]);
        assert!(info.layout_problems.is_empty());
        assert_eq!(untype(&mut info), 0);
        assert_eq!(info.kernels.len(), 1);
    }

    #[test]
    fn an_unmeasured_type_is_never_typed() {
        let mut info = module();
        let plan = Plan::for_model(&info);
        measure(&mut info, &[set(&plan, vec![], vec![])]);
        assert_eq!(untype(&mut info), 1);
        assert!(info.untyped[0].why.contains("did not measure"));
        let mut info = module();
        let rejected = vec![(0, "incomplete type".to_owned())];
        let tables = vec![("sm_90".to_owned(), Vec::new())];
        measure(&mut info, &[set(&plan, tables.clone(), rejected)]);
        assert_eq!(untype(&mut info), 1);
        assert!(info.untyped[0].why.contains("incomplete type"));
        let mut info = module();
        measure(&mut info, &[set(&Plan::default(), tables, vec![])]);
        assert_eq!(untype(&mut info), 1);
        assert!(info.untyped[0].why.contains("could not name it"));
    }
}

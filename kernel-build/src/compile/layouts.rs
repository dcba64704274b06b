//! Layouts measured by the compile that builds the image.
//!
//! Before a unit compiles, its user types (structs, unions, class template instances and
//! enums the front end reads in the raw text) become a [`Plan`]. The unit is compiled
//! through a small wrapper that includes the user's file and then the plan's table: one
//! explicit instantiation per type of an empty kernel template,
//! `kernel_build_layout_<index, sizeof(T), alignof(T), offset, size, base, …>`, whose
//! mangled name carries what the compiler computed. The same nvcc run that makes the
//! images makes the table (no extra compile), and the table is read back from the images
//! themselves (and from the PTX nvcc kept), one reading per target.
//!
//! Each field is asked through a detector template (`kernel_build_f_<name>_<T>`), so a
//! name the compiler cannot measure (a private member, a bit-field, a base class the front
//! end names `base`) answers "not measured" (`u64::MAX`) instead of failing the build. A
//! type the compiler rejects outright (an instance that does not compile) is named by its
//! line of the table in nvcc's errors; the unit is compiled once more without it, and it
//! stays unmeasured with nvcc's reason.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use super::messages::{self, Severity};
use crate::model::{CType, ModuleInfo, StructDef};
use cuda_kernel_objects::{EntryKind, Fatbin, KernelImage};

/// The name the table's lines carry in nvcc's messages (`#line`) and in the device views'
/// line markers.
pub(crate) const TABLE_FILE: &str = crate::front::linemap::LAYOUT_TABLE_FILE;

/// The kernel template whose instances carry the table.
const KERNEL: &str = "kernel_build_layout_";

/// The value of a field the compiler could not measure by its name.
pub(crate) const UNMEASURED: u64 = u64::MAX;

/// One type of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    /// The model's name of the type (`ns::P`, `Pair<float>`, `Outer_in`).
    pub name: String,
    /// How the table spells it in C++ at the end of the file.
    pub spelled: String,
    /// What is asked.
    pub kind: ItemKind,
}

/// What the table asks of a type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ItemKind {
    /// `sizeof`, `alignof`, then per field its offset, its size and, for a field that may
    /// be a base class, the offset in the type of the base's first named member.
    Record {
        /// `(field name, first member of the field's struct type)` in the model's order.
        fields: Vec<(String, Option<String>)>,
    },
    /// `sizeof`, `alignof`, then each enumerator's value.
    Enum {
        /// The enumerators in order.
        variants: Vec<String>,
    },
}

/// The types a unit's table asks about.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    pub items: Vec<Item>,
}

impl Plan {
    /// Every struct (not opaque, not named only) and every enum of `info` that a kernel or a
    /// global passes or points to (nested fields too) and that the table can spell.
    pub(crate) fn for_model(info: &ModuleInfo) -> Plan {
        let used = used_types(info);
        let mut items = Vec::new();
        for s in &info.structs {
            if s.opaque
                || s.name_only
                || info.enums.iter().any(|e| e.name == s.name)
                || !used.contains(&s.name.as_str())
            {
                continue;
            }
            let Some(spelled) = spelling(&s.name, &info.structs, 0) else {
                continue;
            };
            let fields = s
                .fields
                .iter()
                .map(|f| {
                    let inner = base_like(&f.name)
                        .then(|| f.ty.struct_name())
                        .flatten()
                        .and_then(|n| info.structs.iter().find(|d| d.name == n))
                        .and_then(|d| d.fields.first())
                        .map(|g| g.name.clone());
                    (f.name.clone(), inner)
                })
                .filter(|(name, _)| {
                    is_identifier(name) && !name.starts_with(crate::model::BIT_STORAGE)
                })
                .collect();
            items.push(Item {
                name: s.name.clone(),
                spelled,
                kind: ItemKind::Record { fields },
            });
        }
        for e in info
            .enums
            .iter()
            .filter(|e| used.contains(&e.name.as_str()))
        {
            let Some(spelled) = spelling(&e.name, &info.structs, 0) else {
                continue;
            };
            items.push(Item {
                name: e.name.clone(),
                spelled,
                kind: ItemKind::Enum {
                    variants: e.variants.iter().map(|(n, _)| n.clone()).collect(),
                },
            });
        }
        Plan { items }
    }

    /// The items whose model name `keep` accepts.
    pub(crate) fn only(&self, keep: impl Fn(&str) -> bool) -> Plan {
        Plan {
            items: self
                .items
                .iter()
                .filter(|i| keep(&i.name))
                .cloned()
                .collect(),
        }
    }

    /// Whether there is nothing to ask.
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The field names the detectors are made for, in the order of their lines.
    fn detector_names(&self) -> Vec<&str> {
        let mut names = BTreeSet::new();
        for item in &self.items {
            if let ItemKind::Record { fields } = &item.kind {
                for (name, inner) in fields {
                    names.insert(name.as_str());
                    if let Some(inner) = inner {
                        names.insert(inner.as_str());
                    }
                }
            }
        }
        names.into_iter().collect()
    }

    /// The text a wrapper compiles: the user's file `source`, then the table of the items
    /// not in `left_out` (indices into `items`).
    pub(crate) fn wrapper_text(&self, source: &Path, left_out: &[usize]) -> String {
        let path = source.to_string_lossy();
        let mut s = format!(
            "#include {}\n",
            crate::front::linemap::quoted(path.as_ref())
        );
        s.push_str(&self.table(left_out));
        s
    }

    /// The table: the template, a detector per field name (one line each), then one
    /// instantiation per item (one line each, after the detectors).
    fn table(&self, left_out: &[usize]) -> String {
        let names = self.detector_names();
        let mut s = format!("#line 1 \"{TABLE_FILE}\"\n");
        // Line 1: the kernel template and the suppression of the offsetof note on classes
        // that are not standard-layout (the answer is still the compiler's).
        let _ = writeln!(
            s,
            "_Pragma(\"nv_diag_suppress 1427\") template <unsigned long long... V> __global__ void {KERNEL}() {{}} template <class T> struct kernel_build_elem_ {{ typedef T type; }}; template <class T, unsigned long long N> struct kernel_build_elem_<T[N]> {{ typedef typename kernel_build_elem_<T>::type type; }};"
        );
        for n in &names {
            let _ = writeln!(
                s,
                "template <class S, class = void> struct kernel_build_f_{n}_ {{ static constexpr unsigned long long off = ~0ull, size = ~0ull; }}; template <class S> struct kernel_build_f_{n}_<S, decltype(void(sizeof(((S*)0)->{n})))> {{ static constexpr unsigned long long off = __builtin_offsetof(S, {n}), size = sizeof(((S*)0)->{n}); }};"
            );
        }
        for (i, item) in self.items.iter().enumerate() {
            if left_out.contains(&i) {
                // Keep the line numbering: one line per item.
                s.push('\n');
                continue;
            }
            let t = &item.spelled;
            let mut args = format!("{i}ull, sizeof({t}), alignof({t})");
            match &item.kind {
                ItemKind::Record { fields } => {
                    for (name, inner) in fields {
                        let _ = write!(
                            args,
                            ", kernel_build_f_{name}_<{t}>::off, kernel_build_f_{name}_<{t}>::size"
                        );
                        match inner {
                            Some(g) => {
                                let _ = write!(args, ", kernel_build_f_{g}_<{t}>::off");
                            }
                            None => args.push_str(", ~0ull"),
                        }
                    }
                }
                ItemKind::Enum { variants } => {
                    for v in variants {
                        let _ = write!(args, ", (unsigned long long)({t}::{v})");
                    }
                }
            }
            let _ = writeln!(s, "template __global__ void {KERNEL}<{args}>();");
        }
        s
    }

    /// The items nvcc's errors in `output` point at (by their line of the table), with the
    /// error; an error on a detector's line leaves out every item asking that name. Empty
    /// when no error is in the table.
    pub(crate) fn rejected(&self, output: &str) -> Vec<(usize, String)> {
        let names = self.detector_names();
        let first_item_line = 2 + names.len();
        let mut out: Vec<(usize, String)> = Vec::new();
        let mut push = |i: usize, why: &str| {
            if !out.iter().any(|(j, _)| *j == i) {
                out.push((i, why.to_owned()));
            }
        };
        for m in messages::parse(output)
            .into_iter()
            .filter(|m| m.severity == Severity::Error)
        {
            if !m.file.as_deref().is_some_and(|f| f.ends_with(TABLE_FILE)) {
                continue;
            }
            let Some(line) = m.line.and_then(|l| usize::try_from(l).ok()) else {
                continue;
            };
            if line >= first_item_line {
                let i = line - first_item_line;
                if i < self.items.len() {
                    push(i, &m.text);
                }
            } else if let Some(name) = line.checked_sub(2).and_then(|d| names.get(d)) {
                for (i, item) in self.items.iter().enumerate() {
                    if let ItemKind::Record { fields } = &item.kind
                        && fields
                            .iter()
                            .any(|(n, g)| n == name || g.as_deref() == Some(*name))
                    {
                        push(i, &m.text);
                    }
                }
            } else {
                // The template line itself: nothing of the table can be asked.
                for i in 0..self.items.len() {
                    push(i, &m.text);
                }
            }
        }
        out
    }
}

/// Whether a message of nvcc is about the table (a warning there is the build's own).
pub(crate) fn is_table_message(file: Option<&str>) -> bool {
    file.is_some_and(|f| f.ends_with(TABLE_FILE))
}

/// Whether `symbol` is one of the table's kernels (never a user's kernel).
pub(crate) fn is_table_symbol(symbol: &str) -> bool {
    symbol.starts_with(crate::front::linemap::LAYOUT_TABLE_SYMBOL)
}

/// The item index and values a table kernel's symbol carries:
/// `_Z20kernel_build_layout_IJLy<i>ELy<v>E…EEvv`.
pub(crate) fn read_symbol(symbol: &str) -> Option<(usize, Vec<u64>)> {
    let rest = symbol.strip_prefix("_Z20kernel_build_layout_IJ")?;
    let rest = rest.strip_suffix("EEvv")?;
    let mut values = Vec::new();
    let mut rest = rest;
    while !rest.is_empty() {
        let body = rest.strip_prefix("Ly")?;
        let end = body.find('E')?;
        values.push(body[..end].parse::<u64>().ok()?);
        rest = &body[end + 1..];
    }
    let (&index, values) = values.split_first()?;
    Some((usize::try_from(index).ok()?, values.to_vec()))
}

/// The names of the structs and enums the kernels and globals of `info` pass or point to,
/// and those their fields hold, at any depth.
fn used_types(info: &ModuleInfo) -> Vec<&str> {
    let kernels = info
        .kernels
        .iter()
        .flat_map(|k| k.params.iter().map(|p| &p.ty));
    types_reached(kernels.chain(info.globals.iter().map(|g| &g.ty)), info)
}

/// The names of the structs and enums `roots` name (behind pointers, in arrays), and those
/// their fields hold in `info`, at any depth.
pub(crate) fn types_reached<'a>(
    roots: impl IntoIterator<Item = &'a CType>,
    info: &'a ModuleInfo,
) -> Vec<&'a str> {
    let mut used: Vec<&str> = Vec::new();
    let mut todo: Vec<&CType> = roots.into_iter().collect();
    while let Some(ty) = todo.pop() {
        let Some(name) = ty.struct_name() else {
            continue;
        };
        if used.contains(&name) {
            continue;
        }
        used.push(name);
        if let Some(s) = info.structs.iter().find(|s| s.name == name) {
            todo.extend(s.fields.iter().map(|f| &f.ty));
        }
    }
    used
}

/// How the table names the model's type `name` at the end of the file: qualified names
/// as they are (an anonymous namespace's part dropped: the table is in the same file),
/// and a struct the front end named after its place (`Outer_in`, an unnamed struct of
/// field `in` of `Outer`) as the field's declared type.
fn spelling(name: &str, structs: &[StructDef], depth: usize) -> Option<String> {
    if depth > 8 {
        return None;
    }
    for s in structs {
        for f in &s.fields {
            if f.ty.struct_name() == Some(name)
                && name.strip_prefix(s.name.as_str()) == Some(&format!("_{}", f.name))
                && is_identifier(&f.name)
            {
                let outer = spelling(&s.name, structs, depth + 1)?;
                return Some(format!(
                    "kernel_build_elem_<decltype({outer}::{})>::type",
                    f.name
                ));
            }
        }
    }
    let plain = name
        .replace("(anonymous namespace)::", "")
        .replace("__anonymous_namespace__::", "");
    (!plain.contains('(')).then_some(plain)
}

/// A field the front end may have made of a base class (`base`, `base0`, `base1`, …).
fn base_like(name: &str) -> bool {
    name.strip_prefix("base")
        .is_some_and(|d| d.chars().all(|c| c.is_ascii_digit()))
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// One image's table: `(item index, values)` of every table kernel it holds.
pub(crate) type Table = Vec<(usize, Vec<u64>)>;

/// The tables of a compile's images, each with its target's name.
pub(crate) type Tables = Vec<(String, Table)>;

/// Items of a plan nvcc refused, each with its reason.
pub(crate) type Refused = Vec<(usize, String)>;

/// The tables of every readable image of `fatbin`, with the images' target names; images
/// without a table are left out.
pub(crate) fn tables_of(fatbin: &Fatbin) -> Vec<(String, Table)> {
    fatbin
        .entries
        .iter()
        .filter(|e| matches!(e.kind, EntryKind::Elf | EntryKind::Ptx))
        .filter_map(|e| {
            let image = e.image().ok()?;
            let t = table_of(image.kernels());
            (!t.is_empty()).then(|| (e.target(), t))
        })
        .collect()
}

/// The table the kernels `kernels` carry.
pub(crate) fn table_of(kernels: &[KernelImage]) -> Table {
    let mut t: Table = kernels
        .iter()
        .filter_map(|k| read_symbol(&k.symbol))
        .collect();
    t.sort();
    t.dedup();
    t
}

/// One compile's answers: the plan it asked, the tables of its images and the items nvcc
/// refused (with its reason).
#[derive(Clone, Debug, Default)]
pub(crate) struct Measurement {
    pub plan: Plan,
    pub tables: Vec<(String, Table)>,
    pub rejected: Vec<(usize, String)>,
}

impl Measurement {
    /// Whether this compile said something of the type `name`: measured it in an image,
    /// or refused it.
    pub(crate) fn answers(&self, name: &str) -> bool {
        self.plan.items.iter().enumerate().any(|(i, item)| {
            item.name == name
                && (self.rejected.iter().any(|(j, _)| *j == i)
                    || self
                        .tables
                        .iter()
                        .any(|(_, t)| t.iter().any(|(j, _)| *j == i)))
        })
    }
}

/// What one image's table says of one type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Measured {
    pub size: u64,
    pub align: u64,
    /// Records: per field `(offset, size, offset of the base's first member)`; enums:
    /// the enumerators' values as `(value, 0, 0)`.
    pub parts: Vec<(u64, u64, u64)>,
}

/// Decodes the values of `item` from a table kernel.
pub(crate) fn decode(item: &Item, values: &[u64]) -> Option<Measured> {
    let (&size, rest) = values.split_first()?;
    let (&align, rest) = rest.split_first()?;
    let parts = match &item.kind {
        ItemKind::Record { fields } => {
            if rest.len() != fields.len() * 3 {
                return None;
            }
            rest.chunks(3).map(|c| (c[0], c[1], c[2])).collect()
        }
        ItemKind::Enum { variants } => {
            if rest.len() != variants.len() {
                return None;
            }
            rest.iter().map(|&v| (v, 0, 0)).collect()
        }
    };
    Some(Measured { size, align, parts })
}

/// Whether a type of the model is one the table measures: a struct laid out by the front
/// end (an opaque or named-only one was measured by the compiler already, or holds no
/// value).
pub(crate) fn measured_kind(ty: &CType) -> bool {
    !matches!(ty, CType::Void | CType::Scalar(_) | CType::Vector { .. })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Field, Layout};

    fn record(name: &str, fields: &[(&str, CType)]) -> StructDef {
        StructDef {
            name: name.into(),
            fields: fields
                .iter()
                .map(|(n, t)| Field {
                    name: (*n).into(),
                    ty: t.clone(),
                    layout: Layout::default(),
                })
                .collect(),
            size: 0,
            align: 1,
            is_union: false,
            opaque: false,
            name_only: false,
            rust_path: None,
            loc: None,
        }
    }

    #[test]
    fn symbols_carry_the_index_and_the_values() {
        assert_eq!(
            read_symbol("_Z20kernel_build_layout_IJLy0ELy9ELy1ELy0ELy1ELy1ELy8EEEvv"),
            Some((0, vec![9, 1, 0, 1, 1, 8]))
        );
        assert_eq!(
            read_symbol("_Z20kernel_build_layout_IJLy3ELy18446744073709551615EEEvv"),
            Some((3, vec![u64::MAX]))
        );
        assert_eq!(read_symbol("_Z1kv"), None);
        assert!(is_table_symbol(
            "_Z20kernel_build_layout_IJLy3ELy8ELy8EEEvv"
        ));
        assert!(!is_table_symbol("saxpy"));
    }

    #[test]
    fn unnamed_members_are_spelled_through_their_field() {
        let inner = record(
            "Outer_in",
            &[("c", CType::Scalar(crate::model::Scalar::I8))],
        );
        let outer = record(
            "(anonymous namespace)::Outer",
            &[("in", CType::Struct("Outer_in".into()))],
        );
        let outer_named = record("Outer", &[("in", CType::Struct("Outer_in".into()))]);
        let structs = vec![inner, outer_named, outer];
        assert_eq!(
            spelling("Outer_in", &structs, 0).as_deref(),
            Some("kernel_build_elem_<decltype(Outer::in)>::type")
        );
        assert_eq!(
            spelling("(anonymous namespace)::Outer", &structs, 0).as_deref(),
            Some("Outer")
        );
    }

    #[test]
    fn the_table_has_a_line_per_detector_and_per_item() {
        let info = ModuleInfo {
            structs: vec![record(
                "P",
                &[
                    ("a", CType::Scalar(crate::model::Scalar::I8)),
                    ("b", CType::Scalar(crate::model::Scalar::F64)),
                ],
            )],
            globals: vec![crate::model::Global {
                name: "g".into(),
                symbol: "g".into(),
                space: crate::model::GlobalSpace::Device,
                ty: CType::Struct("P".into()),
                size: 16,
                loc: None,
            }],
            ..ModuleInfo::default()
        };
        assert!(
            Plan::for_model(&ModuleInfo {
                globals: vec![],
                ..info.clone()
            })
            .is_empty()
        );
        let plan = Plan::for_model(&info);
        let text = plan.wrapper_text(Path::new("/src/k.cu"), &[]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "#include \"/src/k.cu\"");
        assert_eq!(lines[1], "#line 1 \"kernel-build-layouts\"");
        // Table line 2 and 3: the detectors of `a` and `b`; line 4: the item.
        assert!(
            lines[3].contains("struct kernel_build_f_a_"),
            "{}",
            lines[3]
        );
        assert!(
            lines[4].contains("struct kernel_build_f_b_"),
            "{}",
            lines[4]
        );
        assert!(
            lines[5].starts_with("template __global__ void kernel_build_layout_<0ull, sizeof(P), alignof(P), kernel_build_f_a_<P>::off"),
            "{}",
            lines[5]
        );
        let out = "kernel-build-layouts(4): error: incomplete type is not allowed\n";
        assert_eq!(plan.rejected(out).len(), 1);
        assert_eq!(plan.rejected(out)[0].0, 0);
        let on_detector = "kernel-build-layouts(2): error: expected a member name\n";
        assert_eq!(plan.rejected(on_detector)[0].0, 0);
        assert!(plan.rejected("k.cu(3): error: x\n").is_empty());
        let m = decode(&plan.items[0], &[9, 1, 0, 1, u64::MAX, 1, 8, u64::MAX]).unwrap();
        assert_eq!((m.size, m.align), (9, 1));
        assert_eq!(m.parts[1], (1, 8, u64::MAX));
        assert!(decode(&plan.items[0], &[9, 1]).is_none());
    }
}

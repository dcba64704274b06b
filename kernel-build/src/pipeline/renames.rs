//! Structs that two files of one module define differently under one name (each file's
//! own `struct params`, legal C++ in separate translation units): the later file's struct
//! gets its own Rust name, `<name>_<file stem>`, so that both files' kernels stay typed.

use crate::model::{CType, ModuleInfo, StructDef};

/// The files' models with the later of two different same-named structs renamed, and a
/// note for each renaming.
pub(crate) fn distinct_struct_names(
    parts: &[(&str, &ModuleInfo)],
) -> (Vec<ModuleInfo>, Vec<String>) {
    let mut seen: Vec<(String, StructDef, String)> = Vec::new(); // (Rust name, def, file)
    let mut out = Vec::with_capacity(parts.len());
    let mut notes = Vec::new();
    for (file, info) in parts {
        let mut renames: Vec<(String, String)> = Vec::new();
        for s in &info.structs {
            let same =
                |d: &StructDef| d.fields == s.fields && d.size == s.size && d.align == s.align;
            match seen.iter().find(|(n, _, _)| *n == s.name) {
                None => seen.push((s.name.clone(), s.clone(), (*file).to_owned())),
                Some((_, d, _)) if same(d) => {}
                Some((_, _, first)) => {
                    let mut new = format!("{}_{}", s.name, stem(file));
                    while seen.iter().any(|(n, _, _)| *n == new) {
                        new.push('_');
                    }
                    notes.push(format!(
                        "struct `{}` of `{file}` differs from the one of `{first}`: its Rust \
                         twin is `{new}`",
                        s.name
                    ));
                    seen.push((new.clone(), s.clone(), (*file).to_owned()));
                    renames.push((s.name.clone(), new));
                }
            }
        }
        let mut info = (*info).clone();
        if !renames.is_empty() {
            for s in &mut info.structs {
                if let Some((_, new)) = renames.iter().find(|(old, _)| *old == s.name) {
                    s.name = new.clone();
                }
                for f in &mut s.fields {
                    rename(&mut f.ty, &renames);
                }
            }
            for k in info.kernels.iter_mut().chain(info.elsewhere.iter_mut()) {
                for p in &mut k.params {
                    rename(&mut p.ty, &renames);
                }
            }
            for g in &mut info.globals {
                rename(&mut g.ty, &renames);
            }
            for p in &mut info.layout_problems {
                if let Some((_, new)) = renames.iter().find(|(old, _)| *old == p.ty) {
                    p.ty = new.clone();
                }
            }
            for m in &mut info.layouts_measured {
                if let Some((_, new)) = renames.iter().find(|(old, _)| old == m) {
                    *m = new.clone();
                }
            }
        }
        out.push(info);
    }
    (out, notes)
}

fn rename(ty: &mut CType, renames: &[(String, String)]) {
    match ty {
        CType::Struct(name) => {
            if let Some((_, new)) = renames.iter().find(|(old, _)| old == name) {
                *name = new.clone();
            }
        }
        CType::Pointer { pointee, .. } => rename(pointee, renames),
        CType::Array { elem, .. } => rename(elem, renames),
        _ => {}
    }
}

/// The file's stem as an identifier part: `conv2d-dw.cu` → `conv2d_dw`.
fn stem(file: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    let stem = name.split('.').next().unwrap_or(name);
    stem.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Field, Layout, Scalar};

    fn strukt(name: &str, fields: &[(&str, Scalar, u64)]) -> StructDef {
        let mut offset = 0;
        let fields: Vec<Field> = fields
            .iter()
            .map(|(n, t, size)| {
                let f = Field {
                    name: (*n).into(),
                    ty: CType::Scalar(*t),
                    layout: Layout {
                        offset,
                        size: *size,
                        align: *size,
                    },
                };
                offset += size;
                f
            })
            .collect();
        StructDef {
            name: name.into(),
            fields,
            size: offset,
            align: 4,
            rust_path: None,
            is_union: false,
            opaque: false,
            name_only: false,
            loc: None,
        }
    }

    #[test]
    fn the_later_of_two_different_structs_is_renamed_everywhere_in_its_file() {
        let a = ModuleInfo {
            structs: vec![strukt("params", &[("n", Scalar::I32, 4)])],
            ..ModuleInfo::default()
        };
        let mut b = ModuleInfo {
            structs: vec![strukt(
                "params",
                &[("n", Scalar::I32, 4), ("m", Scalar::I32, 4)],
            )],
            ..ModuleInfo::default()
        };
        b.globals.push(crate::model::Global {
            name: "g".into(),
            symbol: "g".into(),
            space: crate::model::GlobalSpace::Constant,
            ty: CType::Array {
                elem: Box::new(CType::Struct("params".into())),
                len: 2,
            },
            size: 16,
            loc: None,
        });
        let same = a.clone();
        let (out, notes) =
            distinct_struct_names(&[("a.cu", &a), ("k/conv2d-dw.cu", &b), ("c.cu", &same)]);
        assert_eq!(out[0].structs[0].name, "params");
        assert_eq!(out[1].structs[0].name, "params_conv2d_dw");
        assert!(matches!(&out[1].globals[0].ty, CType::Array { elem, .. }
            if **elem == CType::Struct("params_conv2d_dw".into())));
        assert_eq!(
            out[2].structs[0].name, "params",
            "the same layout keeps the name"
        );
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].contains("its Rust twin is `params_conv2d_dw`"),
            "{notes:?}"
        );
    }
}

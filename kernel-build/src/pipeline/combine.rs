//! The files of a module as one model: kernels, structs and globals of every file united.
//! What several files see through a shared header (a template instantiation, a struct)
//! is kept once; two kernels of one name from two files are an error naming both.

use crate::diagnostics::{Diagnostics, units as msg};
use crate::front::types::c_spelling;
use crate::model::built::Unit;
use crate::model::options::LinkMode;
use crate::model::{Kernel, ModuleInfo, SourceLoc};

/// One file's model.
pub(crate) struct Part<'a> {
    pub file: &'a str,
    pub info: &'a ModuleInfo,
}

/// Unites the parts; returns the module's model and, per file, what came from it.
/// `from_images`: each part holds only the kernels its own images define (whole-program
/// files after verification), so the same name in two parts is two definitions unless
/// both come from one line of a shared header.
pub(crate) fn combine(
    parts: &[Part<'_>],
    mode: LinkMode,
    from_images: bool,
) -> Result<(ModuleInfo, Vec<Unit>), Diagnostics> {
    let named: Vec<(&str, &ModuleInfo)> = parts.iter().map(|p| (p.file, p.info)).collect();
    let (renamed, renamings) = super::renames::distinct_struct_names(&named);
    let parts: Vec<Part<'_>> = parts
        .iter()
        .zip(&renamed)
        .map(|(p, info)| Part { file: p.file, info })
        .collect();
    let parts = parts.as_slice();
    let mut diags = Diagnostics::new();
    let mut info = ModuleInfo {
        preprocessed: parts.iter().all(|p| p.info.preprocessed),
        left_out: parts
            .iter()
            .flat_map(|p| p.info.left_out.iter().cloned())
            .collect(),
        ..ModuleInfo::default()
    };
    let mut units: Vec<Unit> = parts
        .iter()
        .map(|p| Unit {
            file: p.file.to_owned(),
            image: None,
            kernels: Vec::new(),
            globals: Vec::new(),
        })
        .collect();
    // Which part each kernel came from.
    let mut owner: Vec<usize> = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        for k in &part.info.kernels {
            match info.kernels.iter().position(|m| m.name == k.name) {
                None => {
                    info.kernels.push(k.clone());
                    owner.push(i);
                }
                Some(at) => {
                    let first = &info.kernels[at];
                    let same_place = same_line(&first.loc, &k.loc)
                        || (first.loc.is_none()
                            && k.loc.is_none()
                            && !k.symbol.is_empty()
                            && first.symbol == k.symbol);
                    let same_params = signature(first) == signature(k);
                    // Whole programs each hold the code they define: one entity only when
                    // it comes from a shared header. Linked files may declare what another
                    // defines: one entity whenever the parameters agree.
                    let same = if from_images {
                        same_place && same_params
                    } else {
                        same_params
                    };
                    if !same {
                        diags.push(msg::kernel_in_two_files(
                            &k.name,
                            parts[owner[at]].file,
                            &first.loc,
                            part.file,
                            &k.loc,
                        ));
                    } else if defines(part.file, k) && !defines(parts[owner[at]].file, first) {
                        // Prefer the defining file's reading (its location and documentation).
                        info.kernels[at] = k.clone();
                        owner[at] = i;
                    }
                }
            }
        }
    }
    for (k, &i) in info.kernels.iter().zip(&owner) {
        units[i].kernels.push(k.symbol.clone());
    }
    // Kernels without a typed declaration, once (a header's template seen by two files).
    for (i, part) in parts.iter().enumerate() {
        for k in &part.info.untyped {
            if !info.untyped.iter().any(|m| m.symbol == k.symbol) {
                info.untyped.push(k.clone());
                units[i].kernels.push(k.symbol.clone());
            }
        }
    }
    // Kernels some file declares and no file's images hold (whole programs only; a
    // device-linked module finds these in its verification).
    let mut nowhere: Vec<(String, Vec<String>)> = Vec::new();
    for part in parts {
        for k in &part.info.elsewhere {
            if info.kernels.iter().any(|m| m.name == k.name) {
                continue;
            }
            match nowhere.iter_mut().find(|(n, _)| *n == k.name) {
                Some((_, files)) => files.push(part.file.to_owned()),
                None => nowhere.push((k.name.clone(), vec![part.file.to_owned()])),
            }
        }
    }
    for (name, files) in &nowhere {
        diags.push(msg::kernel_defined_nowhere(name, files));
    }
    combine_structs(parts, &mut info);
    for part in parts {
        for p in &part.info.layout_problems {
            if !info.layout_problems.contains(p) {
                info.layout_problems.push(p.clone());
            }
        }
        for m in &part.info.layouts_measured {
            if !info.layouts_measured.contains(m) {
                info.layouts_measured.push(m.clone());
            }
        }
        for e in &part.info.enums {
            if !info.enums.iter().any(|m| m.name == e.name) {
                info.enums.push(e.clone());
            }
        }
        for h in &part.info.host_functions {
            if !info.host_functions.iter().any(|m| m.name == h.name) {
                info.host_functions.push(h.clone());
            }
        }
    }
    info.notes.extend(renamings);
    combine_globals(parts, mode, &mut info, &mut units, &mut diags);
    // The first file whose reading stopped names the place in the module's one warning;
    // every kernel any file did not reach carries its own file's place as its reason.
    info.stopped = parts.iter().find_map(|p| p.info.stopped.clone());
    for part in parts {
        for n in part.info.notes.iter().chain(&part.info.skipped) {
            let list = if part.info.notes.contains(n) {
                &mut info.notes
            } else {
                &mut info.skipped
            };
            if !list.contains(n) {
                list.push(n.clone());
            }
        }
    }
    if diags.is_empty() {
        Ok((info, units))
    } else {
        Err(diags)
    }
}

/// Whether `k`'s location is in `file` itself (not a header).
fn defines(file: &str, k: &Kernel) -> bool {
    k.loc.as_ref().is_some_and(|l| l.file == file)
}

/// The same line of the same file, however the path was spelled (`dir/../h.cuh`).
fn same_line(a: &Option<SourceLoc>, b: &Option<SourceLoc>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.line == b.line && lexical(&a.file) == lexical(&b.file),
        _ => false,
    }
}

/// A path with `.` and `name/..` removed, without asking the file system.
fn lexical(path: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "." | "" if !out.is_empty() => {}
            ".." if out.last().is_some_and(|l| *l != ".." && !l.is_empty()) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Parameter types and layouts, what the Rust stub depends on.
fn signature(k: &Kernel) -> Vec<(String, u64, u64)> {
    k.params
        .iter()
        .map(|p| (c_spelling(&p.ty), p.layout.offset, p.layout.size))
        .collect()
}

/// Structs by name (same-named structs that differ were renamed before).
fn combine_structs(parts: &[Part<'_>], info: &mut ModuleInfo) {
    for part in parts {
        for s in &part.info.structs {
            if !info.structs.iter().any(|m| m.name == s.name) {
                info.structs.push(s.clone());
            }
        }
    }
}

fn combine_globals(
    parts: &[Part<'_>],
    mode: LinkMode,
    info: &mut ModuleInfo,
    units: &mut [Unit],
    diags: &mut Diagnostics,
) {
    // name → (global, files)
    let mut seen: Vec<(crate::model::Global, Vec<usize>)> = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        for g in &part.info.globals {
            match seen.iter_mut().find(|(m, _)| m.name == g.name) {
                None => seen.push((g.clone(), vec![i])),
                Some((first, files)) => {
                    if c_spelling(&first.ty) != c_spelling(&g.ty) || first.size != g.size {
                        diags.push(msg::global_in_two_files(
                            &g.name,
                            &c_spelling(&first.ty),
                            parts[files[0]].file,
                            &c_spelling(&g.ty),
                            part.file,
                        ));
                    }
                    files.push(i);
                }
            }
        }
    }
    for (g, files) in seen {
        if files.len() > 1 && mode == LinkMode::Whole {
            let names: Vec<String> = files.iter().map(|&i| parts[i].file.to_owned()).collect();
            info.notes.push(msg::global_per_file(&g.name, &names));
            continue;
        }
        units[files[0]].globals.push(g.symbol.clone());
        info.globals.push(g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{KernelAttrs, Linkage};

    fn kernel(name: &str, symbol: &str, loc: Option<(&str, u32)>) -> Kernel {
        Kernel {
            name: name.into(),
            base_name: name.into(),
            namespace: vec![],
            template_args: vec![],
            symbol: symbol.into(),
            linkage: Linkage::Cxx,
            is_static: false,
            params: vec![],
            attrs: KernelAttrs::default(),
            doc: None,
            loc: loc.map(|(file, line)| SourceLoc {
                file: file.into(),
                line,
                column: 1,
            }),
            images: vec![],
        }
    }

    fn info(kernels: Vec<Kernel>) -> ModuleInfo {
        ModuleInfo {
            kernels,
            ..ModuleInfo::default()
        }
    }

    #[test]
    fn a_header_seen_by_two_files_is_one_kernel_however_its_path_is_spelled() {
        let a = info(vec![kernel("k<1>", "_Z1kILi1EEvv", Some(("src/h.cuh", 9)))]);
        let b = info(vec![kernel(
            "k<1>",
            "_Z1kILi1EEvv",
            Some(("src/inst/../h.cuh", 9)),
        )]);
        // A toolkit template (no location of the user's) instantiated by both files.
        let c = info(vec![kernel(
            "cub::Empty<void>",
            "_ZN3cub5EmptyIvEEvv",
            None,
        )]);
        let d = info(vec![kernel(
            "cub::Empty<void>",
            "_ZN3cub5EmptyIvEEvv",
            None,
        )]);
        let parts = [
            Part {
                file: "a.cu",
                info: &a,
            },
            Part {
                file: "b.cu",
                info: &b,
            },
            Part {
                file: "c.cu",
                info: &c,
            },
            Part {
                file: "d.cu",
                info: &d,
            },
        ];
        let (m, units) = combine(&parts, LinkMode::Whole, true).unwrap();
        assert_eq!(m.kernels.len(), 2);
        assert_eq!(units[0].kernels, ["_Z1kILi1EEvv"]);
        assert!(units[1].kernels.is_empty());
        assert_eq!(units[2].kernels, ["_ZN3cub5EmptyIvEEvv"]);
    }

    #[test]
    fn two_definitions_of_one_name_are_an_error() {
        let a = info(vec![kernel("k", "k", Some(("a.cu", 3)))]);
        let b = info(vec![kernel("k", "k", Some(("b.cu", 7)))]);
        let parts = [
            Part {
                file: "a.cu",
                info: &a,
            },
            Part {
                file: "b.cu",
                info: &b,
            },
        ];
        let err = combine(&parts, LinkMode::Whole, true)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("kernel `k` is defined in two files of the module: a.cu:3 and b.cu:7"),
            "{err}"
        );
        // Device-linked files may declare what another defines: one kernel.
        assert!(combine(&parts, LinkMode::Rdc, false).is_ok());
    }

    #[test]
    fn lexical_paths() {
        assert_eq!(lexical("a/b/../c.cuh"), ["a", "c.cuh"]);
        assert_eq!(lexical("/x/./y/../z"), ["", "x", "z"]);
        assert_eq!(lexical("../h.cuh"), ["..", "h.cuh"]);
    }
}

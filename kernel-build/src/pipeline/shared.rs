//! The Rust types a module shares with CUDA (`ModuleRequest::rust_types`): the headers
//! written from the listed Rust files into a folder named by their content (in the cache,
//! else the temporary folder), that folder given to nvcc and counted as the user's, and,
//! once the module is built, each struct that came from them named by its Rust path and
//! the Rust files tracked.

use std::path::{Path, PathBuf};

use super::request::Source;
use crate::cache::{Cache, hash_bytes};
use crate::diagnostics::shared as msg;
use crate::error::Error;
use crate::model::built::BuiltModule;
use crate::model::request::ModuleRequest;
use crate::model::{CType, StructDef};
use crate::shared_types::{HeaderFile, SharedKind, SharedType, headers, read_file};

/// What a module's build needs of its shared types.
#[derive(Debug, Default)]
pub(super) struct SharedTypes {
    /// Each shared type's name and Rust path.
    paths: Vec<(String, String)>,
    /// The Rust files read (absolute).
    files: Vec<PathBuf>,
    /// The folder the headers were written to, and their include names.
    pub(super) staged: Option<(PathBuf, Vec<String>)>,
    /// Every type read, as Rust defines it.
    defs: Vec<SharedType>,
}

/// Reads the Rust files `req` lists, writes their headers and gives every source their
/// folder, as an include folder of the user's; every problem of every file at once.
pub(super) fn prepare(
    req: &ModuleRequest,
    cache: Option<&Cache>,
    sources: &mut [Source],
) -> Result<SharedTypes, Error> {
    if req.rust_types.is_empty() {
        return Ok(SharedTypes::default());
    }
    let mut read = Vec::new();
    let mut problems = Vec::new();
    let mut paths = Vec::new();
    let mut files = Vec::new();
    let mut defs = Vec::new();
    for listed in &req.rust_types {
        let full = req.base_dir.join(&listed.file);
        let shown = shown_name(&full, &req.base_dir);
        files.push(full.clone());
        let text = match std::fs::read_to_string(&full) {
            Ok(text) => text,
            Err(e) => {
                problems.push(msg::unreadable_file(&shown, &e.to_string()));
                continue;
            }
        };
        match read_file(&shown, &text) {
            Ok(types) => {
                let module = listed.module_path();
                for t in &types {
                    let path = std::iter::once(module.as_str())
                        .chain(t.module.iter().map(String::as_str))
                        .chain([t.name.as_str()])
                        .collect::<Vec<_>>()
                        .join("::");
                    paths.push((t.name.clone(), path));
                }
                defs.extend(types.iter().cloned());
                read.push((shown, types));
            }
            Err(e) => problems.extend(e),
        }
    }
    if !problems.is_empty() {
        return Err(Error::SharedTypes { problems });
    }
    let headers = headers(&read).map_err(|problems| Error::SharedTypes { problems })?;
    let dir = stage(&headers, cache)?;
    for s in sources {
        s.includes.push(dir.clone());
        s.user_dirs.push(dir.clone());
    }
    let names = headers.iter().map(|h| h.name.clone()).collect();
    Ok(SharedTypes {
        paths,
        files,
        staged: Some((dir, names)),
        defs,
    })
}

impl SharedTypes {
    /// Names each struct and enum of the built module that a listed file defines by its Rust
    /// path, and tracks the files.
    pub(super) fn finish(self, built: &mut BuiltModule) {
        let path_of = |name: &str| {
            self.paths
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, path)| path.clone())
        };
        for s in &mut built.info.structs {
            s.rust_path = path_of(&s.name).or(s.rust_path.take());
        }
        // The Rust type is `#[repr(C)]`: its layout is the natural one of its fields. The
        // compile measured what the kernels use; where that differs (the header included
        // under `#pragma pack`, say), the kernels reaching the type go by name and the
        // generated module declares a type of the compiler's layout instead of naming the
        // Rust one.
        let mut moved_any = false;
        for index in 0..built.info.structs.len() {
            let st = &built.info.structs[index];
            let Some(path) = path_of(&st.name) else {
                continue;
            };
            let Some(natural) = natural_layout(&st.name, &self.defs, &built.info.structs, 0) else {
                continue;
            };
            let measured = (st.size, st.align, offsets(st));
            if measured != natural {
                let why = msg::shared_layout_differs(&st.name, &path, &measured, &natural);
                built
                    .info
                    .layout_problems
                    .push(crate::model::LayoutProblem {
                        ty: st.name.clone(),
                        why,
                        differs: true,
                    });
                built.info.structs[index].rust_path = None;
                moved_any = true;
            }
        }
        if moved_any {
            crate::verify::layouts::untype(&mut built.info);
        }
        for e in &mut built.info.enums {
            e.rust_path = path_of(&e.name).or(e.rust_path.take());
        }
        for f in self.files {
            if !built.tracked_files.contains(&f) {
                built.tracked_files.push(f);
            }
        }
    }
}

/// `(size, align, field offsets)` of a shared struct as Rust lays it out (`#[repr(C)]`,
/// with `align(N)` if given): each field at the next multiple of its alignment, the size
/// rounded up to the largest.
fn natural_layout(
    name: &str,
    defs: &[SharedType],
    structs: &[StructDef],
    depth: usize,
) -> Option<(u64, u64, Vec<u64>)> {
    let SharedKind::Struct { align, fields } = &defs.iter().find(|d| d.name == name)?.kind else {
        return None;
    };
    if depth > 32 {
        return None;
    }
    let (mut end, mut most, mut offsets) = (0u64, align.unwrap_or(1), Vec::new());
    for f in fields {
        let (size, field_align) = natural_size_align(&f.ty, defs, structs, depth + 1)?;
        let at = end.next_multiple_of(field_align);
        offsets.push(at);
        end = at + size;
        most = most.max(field_align);
    }
    Some((end.next_multiple_of(most), most, offsets))
}

fn natural_size_align(
    ty: &CType,
    defs: &[SharedType],
    structs: &[StructDef],
    depth: usize,
) -> Option<(u64, u64)> {
    match ty {
        CType::Struct(name) => match defs.iter().find(|d| &d.name == name).map(|d| &d.kind) {
            Some(SharedKind::Enum { repr, .. }) => Some((repr.size(), repr.size())),
            Some(SharedKind::Struct { .. }) => {
                natural_layout(name, defs, structs, depth).map(|(s, a, _)| (s, a))
            }
            None => crate::front::types::size_align(ty, structs),
        },
        CType::Array { elem, len } => {
            let (size, align) = natural_size_align(elem, defs, structs, depth)?;
            Some((size.checked_mul(*len)?, align))
        }
        other => crate::front::types::size_align(other, structs),
    }
}

fn offsets(s: &StructDef) -> Vec<u64> {
    s.fields.iter().map(|f| f.layout.offset).collect()
}

/// The name a Rust file is shown and its header included by: its path from the crate root
/// (`src/particles.rs`), or, for a file outside it, its file name (never a path that leaves
/// the headers' folder).
fn shown_name(full: &Path, base: &Path) -> String {
    let relative = match full.strip_prefix(base) {
        Ok(inside) => inside,
        Err(_) => full.file_name().map_or(full, Path::new),
    };
    relative
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Writes the headers below a folder named by their content, so that the same headers
/// are always at the same paths (which keeps the cache's keys stable).
fn stage(headers: &[HeaderFile], cache: Option<&Cache>) -> Result<PathBuf, Error> {
    let mut all = Vec::new();
    for h in headers {
        all.extend_from_slice(h.name.as_bytes());
        all.push(0);
        all.extend_from_slice(h.text.as_bytes());
        all.push(0);
    }
    let key = &hash_bytes(&all)[..32];
    let files: Vec<(&str, &str)> = headers
        .iter()
        .map(|h| (h.name.as_str(), h.text.as_str()))
        .collect();
    super::request::stage_files(
        &Path::new("types").join(key),
        &Path::new("kernel-build-types").join(key),
        &files,
        cache,
        "failed to write the header of shared types",
    )
}

#[cfg(test)]
mod tests {
    use super::natural_layout;
    use crate::shared_types::read_file;

    #[test]
    fn rust_layouts_follow_repr_c_align_enums_and_nesting() {
        let text = "
            #[derive(CudaType)] #[repr(u8)] pub enum Kind { A = 0, B = 1 }
            #[derive(CudaType)] #[repr(C)] pub struct Inner { pub k: Kind, pub x: f64 }
            #[derive(CudaType)] #[repr(C, align(16))] pub struct Outer { pub a: u8, pub i: [Inner; 2], pub f: f32 }
        ";
        let defs = read_file("src/m.rs", text).unwrap();
        assert_eq!(
            natural_layout("Inner", &defs, &[], 0),
            Some((16, 8, vec![0, 8]))
        );
        assert_eq!(
            natural_layout("Outer", &defs, &[], 0),
            Some((48, 16, vec![0, 8, 40]))
        );
        assert_eq!(natural_layout("Kind", &defs, &[], 0), None);
    }
}

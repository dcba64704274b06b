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
use crate::shared_types::{HeaderFile, headers, read_file};

/// What a module's build needs of its shared types.
#[derive(Debug, Default)]
pub(super) struct SharedTypes {
    /// Each shared type's name and Rust path.
    paths: Vec<(String, String)>,
    /// The Rust files read (absolute).
    files: Vec<PathBuf>,
    /// The folder the headers were written to, and their include names.
    pub(super) staged: Option<(PathBuf, Vec<String>)>,
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

//! Modules compiled at run time: what the binary carries instead of (or beside) a fatbin.
//!
//! With [`RuntimeCompile::Only`] the build reads the declarations without nvcc and embeds the
//! source, the user's headers it includes, its defines and options; the runtime compiles them
//! with NVRTC for the GPU it runs on and checks the compiled parameter layouts against the
//! declarations the stubs were generated from. With [`RuntimeCompile::Fallback`] the fatbin
//! is built as usual and the source rides along, for GPUs the fatbin has no image for.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::request::Source;
use crate::error::Error;
use crate::model::options::{DeviceDebug, RuntimeCompile, RuntimeSource};
use crate::model::request::ModuleRequest;

/// The runtime source of `source`, or an error naming the header that cannot be read.
pub(crate) fn runtime_source(
    req: &ModuleRequest,
    source: &Source,
    mode: RuntimeCompile,
    debug: DeviceDebug,
) -> Result<(RuntimeSource, Vec<PathBuf>), Error> {
    let name = if source.is_file {
        source.path.file_name().map_or_else(
            || format!("{}.cu", req.name),
            |n| n.to_string_lossy().into_owned(),
        )
    } else {
        format!("{}.cu", req.name)
    };
    let here = source.path.parent().map(Path::to_path_buf);
    let (headers, files) = user_headers(&source.text, here.as_deref(), &source.includes)?;
    // Inline text whose lines are the Rust file's: NVRTC's messages and line tables name the
    // `.rs` file and line, as nvcc's do at build time.
    let text = match &source.line_origin {
        Some((file, line)) if !source.is_file => {
            let quoted = crate::front::linemap::quoted(file);
            format!("#line {line} {quoted}\n{}", source.text)
        }
        _ => source.text.clone(),
    };
    Ok((
        RuntimeSource {
            name,
            text,
            headers,
            defines: req.defines.clone(),
            options: super::debug_info::with_flag(req.flags.clone(), debug),
            fallback: mode == RuntimeCompile::Fallback,
        },
        files,
    ))
}

/// Headers by their `#include` names, with their text.
type Headers = Vec<(String, String)>;

/// The headers `text` includes (and they include) found beside the source or in `dirs`,
/// keyed by the name NVRTC will be asked for; headers found nowhere are left to NVRTC (its
/// own, the toolkit's). Returns the files read too. A header comes after the headers it
/// includes, as the preprocessor would place their declarations.
pub(crate) fn user_headers(
    text: &str,
    here: Option<&Path>,
    dirs: &[PathBuf],
) -> Result<(Headers, Vec<PathBuf>), Error> {
    let mut found = Found::default();
    found.visit(text, here, dirs)?;
    Ok((found.headers, found.files))
}

/// What [`user_headers`] collected so far.
#[derive(Default)]
struct Found {
    headers: Headers,
    files: Vec<PathBuf>,
    seen: HashSet<String>,
}

impl Found {
    /// Adds the headers `text` includes, each after its own includes.
    fn visit(&mut self, text: &str, here: Option<&Path>, dirs: &[PathBuf]) -> Result<(), Error> {
        for name in include_names(text) {
            let path = here
                .iter()
                .copied()
                .map(Path::to_path_buf)
                .chain(dirs.iter().cloned())
                .map(|d| d.join(&name))
                .find(|p| p.is_file());
            let Some(path) = path else { continue };
            if !self.seen.insert(name.clone()) {
                continue;
            }
            let bytes = std::fs::read(&path)
                .map_err(|e| Error::io("failed to read the included header", &path, e))?;
            let body = String::from_utf8_lossy(&bytes).into_owned();
            self.visit(&body, path.parent(), dirs)?;
            self.headers.push((name, body));
            self.files.push(path);
        }
        Ok(())
    }
}

/// The names in `#include "x"` and `#include <x>` lines.
fn include_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix('#')?.trim_start();
            let rest = rest.strip_prefix("include")?.trim();
            let close = match rest.chars().next()? {
                '"' => '"',
                '<' => '>',
                _ => return None,
            };
            let inner = &rest[1..];
            Some(inner[..inner.find(close)?].to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_collected_by_their_written_names() {
        let dir = tempfile::tempdir().unwrap();
        let inc = dir.path().join("inc");
        std::fs::create_dir_all(inc.join("sub")).unwrap();
        std::fs::write(
            inc.join("a.h"),
            "#include \"sub/b.h\"\nstruct A { int x; };\n",
        )
        .unwrap();
        std::fs::write(inc.join("sub/b.h"), "#define B 1\n").unwrap();
        std::fs::write(dir.path().join("local.h"), "#pragma once\n").unwrap();
        let text = "#include \"local.h\"\n#include <a.h>\n#include <cuda_fp16.h>\n";
        let (headers, files) =
            user_headers(text, Some(dir.path()), std::slice::from_ref(&inc)).unwrap();
        let names: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
        // Each header after the ones it includes.
        assert_eq!(names, ["local.h", "sub/b.h", "a.h"]);
        assert_eq!(files.len(), 3);
        assert!(headers[2].1.contains("struct A"));
    }

    #[test]
    fn inline_text_with_a_line_origin_carries_its_line_directive_to_nvrtc() {
        let req = ModuleRequest::new(
            "k",
            crate::model::request::SourceInput::Inline {
                text: String::new(),
            },
        );
        let mut source = Source {
            path: PathBuf::from("staged.cu"),
            display_name: "<inline k>".into(),
            text: "__global__ void k() {}\n".into(),
            includes: vec![],
            user_dirs: vec![],
            is_file: false,
            line_origin: Some(("/c/src/main.rs".into(), 12)),
        };
        let (carried, _) =
            runtime_source(&req, &source, RuntimeCompile::Only, DeviceDebug::Lines).unwrap();
        assert_eq!(
            carried.text,
            "#line 12 \"/c/src/main.rs\"\n__global__ void k() {}\n"
        );
        assert_eq!(carried.name, "k.cu");
        source.line_origin = None;
        let (carried, _) =
            runtime_source(&req, &source, RuntimeCompile::Only, DeviceDebug::None).unwrap();
        assert_eq!(carried.text, source.text);
    }
}

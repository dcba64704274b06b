//! The cache key of a compilation: everything that can change its output.
//!
//! The source, the headers given as text, every option (defines, include folders, target),
//! the name expressions, NVRTC's release, and the files the program includes from the include
//! folders it was given, found by following `#include` lines (every one, whatever `#if` says
//! around it: a superset is safe). Headers NVRTC finds elsewhere (its own, the toolkit's)
//! belong to its release.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// What the key covers.
pub(crate) struct KeyInput<'a> {
    pub name: &'a str,
    pub source: &'a str,
    pub headers: &'a [(String, String)],
    pub options: &'a [String],
    pub name_expressions: &'a [String],
    pub includes: &'a [PathBuf],
    pub nvrtc: (u32, u32),
}

/// The key, as 64 hex digits.
pub(crate) fn key(input: &KeyInput<'_>) -> String {
    let mut h = blake3::Hasher::new();
    let mut put = |bytes: &[u8]| {
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    put(b"kernel-runtime nvrtc entry v1");
    put(env!("CARGO_PKG_VERSION").as_bytes());
    put(format!("{}.{}", input.nvrtc.0, input.nvrtc.1).as_bytes());
    put(input.name.as_bytes());
    put(input.source.as_bytes());
    for (name, text) in input.headers {
        put(name.as_bytes());
        put(text.as_bytes());
    }
    for o in input.options {
        put(o.as_bytes());
    }
    for e in input.name_expressions {
        put(e.as_bytes());
    }
    let texts = std::iter::once(input.source).chain(input.headers.iter().map(|(_, t)| t.as_str()));
    for (path, bytes) in included_files(texts, input.includes) {
        put(path.to_string_lossy().as_bytes());
        put(&bytes);
    }
    h.finalize().to_hex().to_string()
}

/// The files reached through `#include` from `texts` that lie in `dirs`, with their bytes, in
/// the order first met.
fn included_files<'a>(
    texts: impl Iterator<Item = &'a str>,
    dirs: &[PathBuf],
) -> Vec<(PathBuf, Vec<u8>)> {
    if dirs.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    // (name as written, folder of the file that includes it)
    let mut queue: Vec<(String, Option<PathBuf>)> =
        texts.flat_map(include_names).map(|n| (n, None)).collect();
    while let Some((name, here)) = queue.pop() {
        // Beside the including file first, as the preprocessor does for `"..."`.
        let found = here
            .iter()
            .chain(dirs)
            .map(|d| d.join(&name))
            .find(|p| p.is_file());
        let Some(path) = found else { continue };
        if !seen.insert(path.clone()) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let dir = path.parent().map(Path::to_path_buf);
        for inner in include_names(&String::from_utf8_lossy(&bytes)) {
            queue.push((inner, dir.clone()));
        }
        out.push((path, bytes));
    }
    out
}

/// The names in `#include "x"` and `#include <x>` lines.
fn include_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix('#')?.trim_start();
            let rest = rest.strip_prefix("include")?.trim();
            let (open, close) = match rest.chars().next()? {
                '"' => ('"', '"'),
                '<' => ('<', '>'),
                _ => return None,
            };
            let inner = rest.strip_prefix(open)?;
            Some(inner[..inner.find(close)?].to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(source: &'a str, includes: &'a [PathBuf]) -> KeyInput<'a> {
        KeyInput {
            name: "k.cu",
            source,
            headers: &[],
            options: &[],
            name_expressions: &[],
            includes,
            nvrtc: (13, 0),
        }
    }

    #[test]
    fn include_lines_are_read() {
        let names = include_names("#include \"a.h\"\n  #  include <b/c.h>\n// #include \"no.h\"\n");
        assert_eq!(names, ["a.h", "b/c.h"]);
    }

    #[test]
    fn an_included_file_changes_the_key() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("a.h"), "#include \"sub/b.h\"\n").unwrap();
        std::fs::write(dir.path().join("sub/b.h"), "#define TILE 16\n").unwrap();
        let dirs = [dir.path().to_owned()];
        let src = "#include \"a.h\"\n__global__ void k() {}";
        let before = key(&input(src, &dirs));
        assert_eq!(before, key(&input(src, &dirs)), "stable");
        std::fs::write(dir.path().join("sub/b.h"), "#define TILE 32\n").unwrap();
        assert_ne!(
            before,
            key(&input(src, &dirs)),
            "a header two levels down counts"
        );
        assert_ne!(key(&input(src, &[])), key(&input("//\n", &[])));
    }

    #[test]
    fn every_part_is_in_the_key() {
        let base = key(&input("s", &[]));
        let mut i = input("s", &[]);
        i.nvrtc = (13, 1);
        assert_ne!(base, key(&i));
        let opts = ["-DX=1".to_owned()];
        let mut i = input("s", &[]);
        i.options = &opts;
        assert_ne!(base, key(&i));
        let headers = [("h.h".to_owned(), "int x;".to_owned())];
        let mut i = input("s", &[]);
        i.headers = &headers;
        assert_ne!(base, key(&i));
        let exprs = ["k<int>".to_owned()];
        let mut i = input("s", &[]);
        i.name_expressions = &exprs;
        assert_ne!(base, key(&i));
    }
}

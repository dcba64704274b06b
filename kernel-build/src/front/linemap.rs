//! Line markers of preprocessed text: which lines come from the user's files, and
//! where each of them was in its original file.
//!
//! `nvcc -E` writes `# <line> "<file>" <flags>` markers. [`user_lines`] keeps the lines
//! of the user's files, blanks every other line (so token positions stay valid),
//! and records for each kept line its original file and line.

use std::path::{Component, Path, PathBuf};

use crate::model::SourceLoc;

/// Maps lines of a text handed to the lexer back to original files and lines.
#[derive(Clone, Debug, Default)]
pub struct LineMap {
    files: Vec<String>,
    /// Index = line - 1 in the filtered text; `(file index, original line)`.
    lines: Vec<Option<(usize, u32)>>,
}

impl LineMap {
    /// The identity map for unpreprocessed text of one file.
    pub fn identity(file: &str, text: &str) -> Self {
        let n = text.lines().count() + 1;
        LineMap {
            files: vec![file.to_string()],
            lines: (1..=n).map(|l| Some((0, l as u32))).collect(),
        }
    }

    /// The original location of `line`:`col` of the filtered text.
    pub fn loc(&self, line: u32, col: u32) -> Option<SourceLoc> {
        let (file, orig) = (*self.lines.get((line as usize).checked_sub(1)?)?)?;
        Some(SourceLoc {
            file: self.files.get(file)?.clone(),
            line: orig,
            column: col,
        })
    }
}

/// The user's part of a preprocessed text.
#[derive(Clone, Debug, Default)]
pub struct Filtered {
    /// The preprocessed text with non-user lines and line markers blanked.
    pub text: String,
    /// Where each line came from.
    pub map: LineMap,
}

/// Decides which marker paths are the user's and how they are shown.
pub struct UserFiles<'a> {
    /// The path nvcc was given for the main file.
    pub main_file: &'a Path,
    /// Name shown for the main file.
    pub display_name: &'a str,
    /// Directories whose headers count as the user's.
    pub user_dirs: &'a [PathBuf],
}

/// The name the build's layout table goes by in line markers and messages (see
/// `compile::layouts`): its lines are never the user's.
pub(crate) const LAYOUT_TABLE_FILE: &str = "kernel-build-layouts";

/// The name the section of tuned kernels' instantiations goes by in line markers and
/// messages (see `pipeline::tuned`): its lines are never the user's.
pub(crate) const TUNED_SECTION_FILE: &str = "kernel-build-tuned";

/// The start of the symbols of the layout table's kernels, which are never the user's.
pub(crate) const LAYOUT_TABLE_SYMBOL: &str = "_Z20kernel_build_layout_";

impl UserFiles<'_> {
    fn classify(&self, marker_path: &str) -> Option<String> {
        if marker_path == LAYOUT_TABLE_FILE || marker_path == TUNED_SECTION_FILE {
            return None;
        }
        let p = normalize(Path::new(marker_path));
        if p == lossy(self.main_file) {
            return Some(self.display_name.to_string());
        }
        let under = self.user_dirs.iter().any(|d| p.starts_with(lossy(d)));
        under.then(|| marker_path.to_string())
    }
}

/// A path as it reads in the preprocessed text, which is decoded lossily: a byte that is
/// not UTF-8 becomes U+FFFD on both sides of a comparison.
fn lossy(p: &Path) -> PathBuf {
    normalize(Path::new(&*p.to_string_lossy()))
}

/// Lexically normalises a path, made absolute against the current directory.
fn normalize(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `preprocessed` with every line marker that names `from` naming `to` instead, its line
/// number less `back` (never below 1), and its flags kept: the text an inline source
/// would have given without the `#line` directive that names its Rust file.
pub(crate) fn rename_markers(preprocessed: &str, from: &str, to: &str, back: u32) -> String {
    let mut out = String::with_capacity(preprocessed.len());
    for (i, line) in preprocessed.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match parse_marker(line) {
            Some((number, path)) if path == from => {
                // The flags follow the path's closing quote, the line's last.
                let flags = line.rfind('"').map_or("", |q| &line[q + 1..]);
                let number = number.saturating_sub(back).max(1);
                out.push_str(&format!("# {number} {}{flags}", quoted(to)));
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// `path` as a line marker or `#line` directive writes it: in quotes, with `\` and `"`
/// escaped.
pub(crate) fn quoted(path: &str) -> String {
    format!("\"{}\"", path.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Parses a line marker (`# 12 "k.cu" 2` or `#line 12 "k.cu"`): line and path.
fn parse_marker(line: &str) -> Option<(u32, String)> {
    let (number, quoted) = marker(line.as_bytes())?;
    Some((
        number,
        String::from_utf8_lossy(&unescape(quoted)).into_owned(),
    ))
}

/// A line marker's line number and its quoted path as written, escapes included.
fn marker(line: &[u8]) -> Option<(u32, &[u8])> {
    let rest = line
        .trim_ascii_start()
        .strip_prefix(b"#")?
        .trim_ascii_start();
    let rest = rest
        .strip_prefix(b"line")
        .unwrap_or(rest)
        .trim_ascii_start();
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let number: u32 = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    let quoted = rest[digits..].trim_ascii_start().strip_prefix(b"\"")?;
    let mut i = 0;
    while i < quoted.len() {
        match quoted[i] {
            b'"' => return Some((number, &quoted[..i])),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    None
}

/// Every file the preprocessed text came from, in order of first entry, as its line
/// markers name them (nvcc's paths, relative where it was given relative ones): the same
/// list as the dependency file `-MD` would have written, without another preprocessing
/// pass. Read from the bytes, so that a path that is not UTF-8 stays the file's path. The
/// compiler's own pseudo-files (`<built-in>`, `<command-line>`) are left out.
pub(crate) fn included_files(preprocessed: &[u8]) -> Vec<PathBuf> {
    let mut seen: std::collections::HashSet<&[u8]> = std::collections::HashSet::new();
    let mut out = Vec::new();
    for line in preprocessed.split(|&b| b == b'\n') {
        if line.first() != Some(&b'#') {
            continue;
        }
        let Some((_, quoted)) = marker(line) else {
            continue;
        };
        if quoted.is_empty() || quoted.starts_with(b"<") || !seen.insert(quoted) {
            continue;
        }
        out.push(path_from_bytes(unescape(quoted)));
    }
    out
}

/// A marker's path with its escapes (`\\`, `\"`) undone.
fn unescape(quoted: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(quoted.len());
    let mut bytes = quoted.iter();
    while let Some(&b) = bytes.next() {
        match b {
            b'\\' => out.extend(bytes.next()),
            b => out.push(b),
        }
    }
    out
}

#[cfg(unix)]
fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

/// Keeps the lines of the user's files from `preprocessed`.
pub fn user_lines(preprocessed: &str, users: &UserFiles<'_>) -> Filtered {
    split(preprocessed, users, true)
}

/// Keeps the lines of every file but the user's: the toolkit and system headers, where
/// the types a kernel takes from a library (`cudaExtent`, `curandState`) are defined.
pub fn library(preprocessed: &str, users: &UserFiles<'_>) -> Filtered {
    split(preprocessed, users, false)
}

/// The lines of the user's files (`user`) or of all the others, every other line blanked.
fn split(preprocessed: &str, users: &UserFiles<'_>, user: bool) -> Filtered {
    let mut out = Filtered::default();
    let mut current: Option<usize> = None;
    let mut next_line = 1u32;
    let mut known: std::collections::HashMap<String, Option<usize>> =
        std::collections::HashMap::new();
    for line in preprocessed.split('\n') {
        if let Some((number, path)) = parse_marker(line) {
            current = match known.get(&path) {
                Some(idx) => *idx,
                None => {
                    let shown = match (users.classify(&path), user) {
                        (Some(shown), true) => Some(shown),
                        (None, false) => Some(normalize(Path::new(&path)).display().to_string()),
                        _ => None,
                    };
                    let idx = shown.map(|shown| {
                        out.map.files.push(shown);
                        out.map.files.len() - 1
                    });
                    known.insert(path, idx);
                    idx
                }
            };
            next_line = number;
            out.text.push('\n');
            out.map.lines.push(None);
            continue;
        }
        match current {
            Some(file) => {
                out.text.push_str(line);
                out.map.lines.push(Some((file, next_line)));
            }
            None => out.map.lines.push(None),
        }
        out.text.push('\n');
        next_line = next_line.saturating_add(1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn included_files_are_the_markers_files_once_each_in_order() {
        let text = "# 0 \"k.cu\"\n# 0 \"<built-in>\"\n# 0 \"<command-line>\"\n# 1 \"k.cu\"\n\
                    # 1 \"/inc/a b.h\" 1\nint a;\n# 1 \"/inc/q\\\"x.h\" 1\n# 3 \"/inc/a b.h\" 2\n\
                    # 2 \"k.cu\" 2\n  # 9 \"not-a-marker.h\"\n__global__ void k() {}\n";
        assert_eq!(
            included_files(text.as_bytes()),
            [
                PathBuf::from("k.cu"),
                PathBuf::from("/inc/a b.h"),
                PathBuf::from("/inc/q\"x.h")
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_included_path_that_is_not_utf8_stays_the_files_path() {
        use std::os::unix::ffi::OsStrExt;
        let text = b"# 1 \"dir/caf\xe9 k.cu\"\nint x;\n#line 2 \"dir/caf\xe9 k.cu\"\n";
        let files = included_files(text);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].as_os_str().as_bytes(), b"dir/caf\xe9 k.cu");
    }

    #[test]
    fn markers_naming_a_file_are_renamed_and_renumbered() {
        let text = "# 1 \"/t/k.cu\"\n#line 40 \"/c/src/main.rs\"\nint a;\n\
                    # 1 \"/c/h.cuh\" 1\n# 42 \"/c/src/main.rs\" 2\n__global__ void k();";
        let renamed = rename_markers(text, "/c/src/main.rs", "/t/k.cu", 38);
        assert_eq!(
            renamed,
            "# 1 \"/t/k.cu\"\n# 2 \"/t/k.cu\"\nint a;\n# 1 \"/c/h.cuh\" 1\n# 4 \"/t/k.cu\" 2\n\
             __global__ void k();"
        );
    }

    #[test]
    fn markers_parse_with_escapes_and_line_form() {
        assert_eq!(
            parse_marker("# 7 \"a\\\\b.cu\" 1 3"),
            Some((7, "a\\b.cu".into()))
        );
        assert_eq!(parse_marker("#line 3 \"k.cu\""), Some((3, "k.cu".into())));
        assert_eq!(parse_marker("#pragma once"), None);
        assert_eq!(parse_marker("# 3 \"open"), None);
    }

    #[test]
    fn user_headers_under_user_dirs_are_kept() {
        let dir = std::env::temp_dir().join("inc");
        let header = dir.join("u.h");
        let pre = format!(
            "# 1 \"k.cu\"\n# 1 \"{}\" 1\nstruct U {{ int a; }};\n# 2 \"k.cu\" 2\n",
            header.display()
        );
        let dirs = [dir];
        let users = UserFiles {
            main_file: Path::new("./k.cu"),
            display_name: "k.cu",
            user_dirs: &dirs,
        };
        let f = user_lines(&pre, &users);
        assert!(f.text.contains("struct U"));
        let loc = f.map.loc(3, 1).unwrap();
        assert_eq!(loc.line, 1);
        assert!(loc.file.ends_with("u.h"));
    }

    #[test]
    fn system_headers_are_blanked() {
        let pre = "# 1 \"k.cu\"\nint a;\n# 1 \"/sys/h.h\" 1\nint b;\n# 2 \"k.cu\" 2\nint c;";
        let f = user_lines(
            pre,
            &UserFiles {
                main_file: Path::new("k.cu"),
                display_name: "k.cu",
                user_dirs: &[],
            },
        );
        assert!(
            f.text.contains("int a;") && f.text.contains("int c;") && !f.text.contains("int b;")
        );
        assert!(f.map.loc(4, 1).is_none());
        assert_eq!(f.map.loc(6, 1).unwrap().line, 2);
    }

    #[test]
    fn identity_map_keeps_lines_and_columns() {
        let m = LineMap::identity("k.cu", "a\nb\n");
        assert_eq!(m.loc(2, 5).unwrap().to_string(), "k.cu:2:5");
    }

    #[test]
    fn identity_map_has_no_line_past_the_end() {
        let m = LineMap::identity("k.cu", "a");
        assert!(m.loc(9, 1).is_none());
    }

    #[test]
    fn filter_drops_system_headers_and_maps_user_lines() {
        let pre =
            "# 1 \"k.cu\"\n# 1 \"/usr/include/x.h\" 1\ntypedef int x;\n# 2 \"k.cu\" 2\nint y;\n";
        let f = user_lines(
            pre,
            &UserFiles {
                main_file: Path::new("k.cu"),
                display_name: "kernels.cu",
                user_dirs: &[],
            },
        );
        assert!(!f.text.contains("typedef"));
        assert_eq!(f.map.loc(5, 1).unwrap().to_string(), "kernels.cu:2:1");
    }

    #[test]
    fn library_keeps_system_headers_only() {
        let pre = "# 1 \"k.cu\"\nint y;\n# 1 \"/usr/include/x.h\" 1\ntypedef int x;\n";
        let f = library(
            pre,
            &UserFiles {
                main_file: Path::new("k.cu"),
                display_name: "k.cu",
                user_dirs: &[],
            },
        );
        assert!(f.text.contains("typedef") && !f.text.contains("int y"));
        assert_eq!(f.map.loc(4, 1).unwrap().to_string(), "/usr/include/x.h:1:1");
    }
}

//! docs/ARCHITECTURE.md stays true about where things are: every file path it names in
//! backticks (`codegen/shell.rs`, `kernel-build/src/env_table.md`, `scripts/test.sh`) is a
//! file or folder of the repository, named from the root, from a crate's folder, or as the
//! tail of a path inside one.

use std::path::Path;

/// Every file and folder under `dir`, relative to `root`, with `/` separators; build outputs,
/// installed tools and version control left out.
fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if matches!(
            name.as_str(),
            "target" | ".git" | ".cuda-toolkit" | ".tools" | "node_modules"
        ) {
            continue;
        }
        if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
        if path.is_dir() {
            walk(root, &path, out);
        }
    }
}

/// The backticked words of `text` that are paths: a `/` in them, and no space, `::`, `*`,
/// `$`, `<` or `=` (code, globs, variables, options).
fn named_paths(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|w| w.trim_end_matches('/'))
        .filter(|w| {
            w.contains('/')
                && !w.starts_with('/')
                && !w.contains(|c: char| c.is_whitespace() || "*$<=:(){}\"'@#".contains(c))
                && w.rsplit('/').next().is_some_and(|last| last.contains('.'))
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_path_architecture_names_exists() {
    let root = kernel_test_support::workspace_root();
    let text = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    let named = named_paths(&text);
    assert!(named.len() > 20, "only {} paths found", named.len());
    let missing: Vec<&String> = named
        .iter()
        .filter(|p| {
            !files
                .iter()
                .any(|f| f == *p || f.ends_with(&format!("/{p}")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

#[test]
fn paths_are_told_from_code_and_globs() {
    let text =
        "see `codegen/shell.rs`, `a::b`, `x = 1`, `kernels/*.cu`, `$OUT_DIR/k.rs` and `src/`";
    assert_eq!(named_paths(text), ["codegen/shell.rs"]);
}

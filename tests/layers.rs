//! The libraries' folders import each other in one direction only.
//!
//! For `cuda-kernel-build`, docs/ARCHITECTURE.md lists the layers (the line after "Layers of
//! `cuda-kernel-build`"): each top-level module (a folder or a file of `kernel-build/src`) may
//! import only the modules before it in that list, and every module is in the list. For
//! `cuda-kernel-runtime`, no two top-level modules may reach each other through their imports.
//!
//! An import is a `crate::NAME` path in the code of a module's files; doc comments, comments
//! and the unit tests (`tests.rs` files, `#[cfg(test)] mod tests`) are left out, since tests
//! may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use kernel_test_support::workspace_root;

/// Top-level module of each source file under `src`, and the modules its code names.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = Vec::new();
    collect(src, &mut files);
    for file in files {
        let rel = file.strip_prefix(src).unwrap();
        let first = rel.iter().next().unwrap().to_string_lossy().into_owned();
        let module = first.trim_end_matches(".rs").to_owned();
        if module == "lib" || module == "bin" || rel.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let named = out.entry(module.clone()).or_default();
        for name in crate_paths(code_of(&text)) {
            if name != module {
                named.insert(name);
            }
        }
    }
    out
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text before the file's unit tests, without comments.
fn code_of(text: &str) -> String {
    let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    text[..end]
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment after every `crate::` (`crate::model::X` → `model`), and each name of a
/// `use crate::{a, b::c}` group.
fn crate_paths(code: String) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != "self" {
                    out.insert(name);
                }
            }
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// The layer list of docs/ARCHITECTURE.md.
fn documented_layers(doc: &str) -> Vec<String> {
    let start = doc
        .find("Layers of `cuda-kernel-build`")
        .expect("docs/ARCHITECTURE.md lists the layers of cuda-kernel-build");
    let para = &doc[start..];
    let para = &para[..para.find("\n\n").unwrap_or(para.len())];
    let list = &para[para.find(":\n").expect("the list follows a colon") + 2..];
    let list = &list[..list.find('.').unwrap_or(list.len())];
    list.split(',')
        .map(|w| w.trim().trim_matches('`').to_owned())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Modules that reach each other, as pairs (a cycle of any length shows as its pairs).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<(String, String)> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(m) = todo.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let mut out = Vec::new();
    for a in graph.keys() {
        for b in reach(a) {
            if a < &b && reach(&b).contains(a) {
                out.push((a.clone(), b));
            }
        }
    }
    out
}

#[test]
fn build_library_folders_import_only_earlier_layers() {
    let root = workspace_root();
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let layers = documented_layers(&doc);
    assert!(layers.len() > 10, "the layer list reads as {layers:?}");
    let graph = imports(&root.join("kernel-build/src"));
    let mut problems = Vec::new();
    for (module, named) in &graph {
        let Some(at) = layers.iter().position(|l| l == module) else {
            problems.push(format!("`{module}` is not in the documented layers"));
            continue;
        };
        for name in named {
            match layers.iter().position(|l| l == name) {
                Some(to) if to < at => {}
                Some(_) => problems.push(format!(
                    "`{module}` imports `{name}`, which the documented layers put after it"
                )),
                None if graph.contains_key(name) => {
                    problems.push(format!("`{name}` is not in the documented layers"))
                }
                // `crate::Error` and the like: the crate root's re-exports.
                None => {}
            }
        }
    }
    for layer in &layers {
        if !graph.contains_key(layer) {
            problems.push(format!("the documented layer `{layer}` is no module"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn runtime_folders_import_each_other_in_one_direction() {
    let graph = imports(&workspace_root().join("kernel-runtime/src"));
    assert!(graph.contains_key("driver") && graph.contains_key("device"));
    let found = cycles(&graph);
    assert!(found.is_empty(), "modules that reach each other: {found:?}");
}

#[test]
fn the_checks_see_imports_and_cycles() {
    let code = code_of(
        "use crate::model::X;\nuse crate::{env, front::names};\n// crate::cache\nfn f() { mycrate::x(); crate::jobs::run() }\n#[cfg(test)]\nmod tests { use crate::builder; }\n",
    );
    let names: Vec<String> = crate_paths(code).into_iter().collect();
    assert_eq!(names, ["env", "front", "jobs", "model"]);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.insert("a".into(), ["b".to_owned()].into());
    graph.insert("b".into(), ["c".to_owned()].into());
    graph.insert("c".into(), ["a".to_owned()].into());
    graph.insert("d".into(), ["a".to_owned()].into());
    assert_eq!(cycles(&graph).len(), 3);
    let doc = "Layers of `cuda-kernel-build`, each:\n`env`, `model`,\n`front`.\nMore.\n\nNext.";
    assert_eq!(documented_layers(doc), ["env", "model", "front"]);
}

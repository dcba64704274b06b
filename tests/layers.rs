//! The libraries' folders import each other in one direction only, as docs/ARCHITECTURE.md
//! says.
//!
//! For each library, docs/ARCHITECTURE.md lists the layers (the line after "Layers of
//! `cuda-kernel-build`", and after "Layers of `cuda-kernel-runtime`", in a paragraph that
//! names this test): each top-level module (a folder or a file of the library's `src`) may
//! import only the modules before it in that list, and every module is in the list. In the
//! runtime, the files of one folder (at any depth) import each other in one direction but in
//! the folders the document names as keeping a cycle (the sentence that starts "Between the
//! files of one folder"), and what the rows of its table of folders say a folder imports
//! ("imports nothing of the crate", "It imports only ...", "nothing imports it") is what its
//! code imports.
//!
//! An import is a `crate::NAME` path in the code of a module's files (between the files of a
//! folder: a `crate::FOLDER::NAME` or `super::NAME` path); doc comments, comments and the unit
//! tests (`tests.rs` files, `#[cfg(test)] mod tests`) are left out, since tests may reach
//! anywhere.

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
    paths_after(&code, "crate::")
}

/// The first segment after every `prefix` that starts a path (`crate::memory::`, `super::`),
/// and each name of a `{a, b::c}` group after it.
fn paths_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices(prefix) {
        let before = code[..i].chars().last();
        let rest = &code[i + prefix.len()..];
        // `mycrate::`, and the second `super::` of `super::super::x`: not this prefix's.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
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

/// The paragraph of docs/ARCHITECTURE.md that starts "Layers of `package`".
fn layer_paragraph<'a>(doc: &'a str, package: &str) -> &'a str {
    let start = doc
        .find(&format!("Layers of `{package}`"))
        .unwrap_or_else(|| panic!("docs/ARCHITECTURE.md lists the layers of {package}"));
    let para = &doc[start..];
    &para[..para.find("\n\n").unwrap_or(para.len())]
}

/// The layer list of a paragraph: the backticked names after its first colon at a line's end,
/// up to the next full stop.
fn layer_list(para: &str) -> Vec<String> {
    let list = &para[para.find(":\n").expect("the list follows a colon") + 2..];
    let list = &list[..list.find('.').unwrap_or(list.len())];
    list.split(',')
        .map(|w| w.trim().trim_matches('`').to_owned())
        .filter(|w| !w.is_empty())
        .collect()
}

/// The folders of the sentence of docs/ARCHITECTURE.md that starts "Between the files of one
/// folder" (its backticked words ending in `/`, up to the first `;`, each a path from the
/// repository's root such as `kernel-build/src/front/`): those whose files still reach each
/// other.
fn documented_file_cycles(doc: &str) -> Vec<String> {
    let start = doc
        .find("Between the files of one folder")
        .expect("docs/ARCHITECTURE.md says which folders keep a cycle between their files");
    let sentence = &doc[start..];
    let sentence = &sentence[..sentence.find(';').unwrap_or(sentence.len())];
    sentence
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|w| w.strip_suffix('/'))
        .map(str::to_owned)
        .collect()
}

/// Each folder under `src` (at any depth), as a path from `src` with `/` separators.
fn folders(src: &Path, under: &str, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(src.join(under)).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let folder = if under.is_empty() {
                name
            } else {
                format!("{under}/{name}")
            };
            folders(src, &folder, out);
            out.push(folder);
        }
    }
}

/// Each room of the folder `src/<folder>` (`""` is `src` itself): its files (`mod.rs`,
/// `lib.rs`, `main.rs` and `tests.rs` left out) and its subfolders, each taken whole; and the
/// rooms of the same folder its code names: `crate::<folder>::NAME`, or `super::NAME` from a
/// file of the folder (`super::super::NAME` from a file one folder further down, and so on).
fn folder_imports(src: &Path, folder: &str) -> BTreeMap<String, BTreeSet<String>> {
    let dir = src.join(folder);
    let mut rooms: BTreeMap<String, Vec<(std::path::PathBuf, usize)>> = BTreeMap::new();
    for path in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let mut files = Vec::new();
            collect(&path, &mut files);
            let files = files
                .into_iter()
                .filter(|file| !file.ends_with("tests.rs"))
                .map(|file| {
                    let depth = module_depth(&path, &file);
                    (file, depth)
                })
                .collect();
            rooms.insert(name, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            if !["mod", "lib", "main", "tests"].contains(&stem.as_str()) {
                rooms.insert(stem, vec![(path, 0)]);
            }
        }
    }
    let prefix = if folder.is_empty() {
        "crate::".to_owned()
    } else {
        format!("crate::{}::", folder.replace('/', "::"))
    };
    rooms
        .iter()
        .map(|(room, files)| {
            let mut named = BTreeSet::new();
            for (path, depth) in files {
                let code = code_of(&std::fs::read_to_string(path).unwrap());
                named.extend(paths_after(&code, &prefix));
                named.extend(paths_after(&code, &"super::".repeat(depth + 1)));
            }
            named.retain(|name| name != room && rooms.contains_key(name));
            (room.clone(), named)
        })
        .collect()
}

/// How many folders below `room`'s own level the module of `file` (a file below the folder
/// `room`) lies: `room/mod.rs` 0, `room/a.rs` and `room/b/mod.rs` 1, `room/b/c.rs` 2, ...; one
/// less than the `super::`s that lead from it to the folder `room` is in.
fn module_depth(room: &Path, file: &Path) -> usize {
    let steps = file.strip_prefix(room).unwrap().components().count();
    if file.ends_with("mod.rs") {
        steps - 1
    } else {
        steps
    }
}

/// What a row of the runtime's table of folders says its folder imports.
#[derive(Debug, PartialEq)]
enum ImportClaim {
    /// "imports nothing of the crate".
    Nothing,
    /// "It imports only `a/`, `b` and `c/`": exactly these modules.
    Only(BTreeSet<String>),
    /// "nothing imports it".
    NotImported,
}

/// The claims of the rows of the `| folder | concern |` table, each with its module (`driver/`
/// → `driver`, `cuda_type.rs` → `cuda_type`).
fn import_claims(doc: &str) -> Vec<(String, ImportClaim)> {
    let mut out = Vec::new();
    let mut in_table = false;
    for line in doc.lines() {
        if line.starts_with("| folder | concern |") {
            in_table = true;
            continue;
        }
        if !line.starts_with('|') {
            in_table = false;
        }
        let mut cells = line.split('|').skip(1);
        let (Some(first), Some(concern)) = (cells.next(), cells.next()) else {
            continue;
        };
        if !in_table {
            continue;
        }
        let module = first
            .trim()
            .trim_matches('`')
            .trim_end_matches('/')
            .trim_end_matches(".rs")
            .to_owned();
        if concern.contains("imports nothing of the crate") {
            out.push((module.clone(), ImportClaim::Nothing));
        }
        if let Some(at) = concern.find("imports only ") {
            let rest = &concern[at..];
            let end = [", and nothing imports it", ". ", " |"]
                .iter()
                .filter_map(|e| rest.find(e))
                .min()
                .unwrap_or(rest.len());
            let named = rest[..end]
                .split('`')
                .skip(1)
                .step_by(2)
                .map(|w| w.trim_end_matches('/').to_owned())
                .collect();
            out.push((module.clone(), ImportClaim::Only(named)));
        }
        if concern.contains("nothing imports it") {
            out.push((module, ImportClaim::NotImported));
        }
    }
    out
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

fn architecture() -> String {
    std::fs::read_to_string(workspace_root().join("docs/ARCHITECTURE.md")).unwrap()
}

/// The modules of `package` (its sources in `src`) import only the layers before them.
fn check_layers(package: &str, src: &str) {
    let doc = architecture();
    let para = layer_paragraph(&doc, package);
    let words: Vec<&str> = para.split_whitespace().collect();
    assert!(
        words.join(" ").contains("(a test, `tests/layers.rs`,"),
        "the layers of {package} name tests/layers.rs as the test that reads them:\n{para}"
    );
    let layers = layer_list(para);
    assert!(layers.len() > 10, "the layer list reads as {layers:?}");
    let graph = imports(&workspace_root().join(src));
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
    assert!(problems.is_empty(), "{package}:\n{}", problems.join("\n"));
}

#[test]
fn build_library_folders_import_only_earlier_layers() {
    check_layers("cuda-kernel-build", "kernel-build/src");
}

#[test]
fn runtime_folders_import_only_earlier_layers() {
    check_layers("cuda-kernel-runtime-core", "kernel-runtime-core/src");
}

/// The library and tool crates: their sources are held to one direction per folder, and to
/// raw calls of native libraries only in those libraries' layers.
const CRATES: [&str; 7] = [
    "kernel-objects",
    "kernel-generate",
    "kernel-build",
    "kernel-runtime-core",
    "kernel-runtime",
    "kernel-macros",
    "kernel-inspect",
];

#[test]
fn files_of_a_folder_import_each_other_in_one_direction() {
    let doc = architecture();
    let keeping = documented_file_cycles(&doc);
    let root = workspace_root();
    let memory = folder_imports(&root.join("kernel-runtime-core/src"), "memory");
    assert!(
        memory.len() > 10 && memory.values().filter(|named| !named.is_empty()).count() > 5,
        "the files of memory/ read as {memory:?}"
    );
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    for krate in CRATES {
        let src = root.join(krate).join("src");
        let mut all = vec![String::new()];
        folders(&src, "", &mut all);
        for folder in &all {
            let path = format!("{krate}/src/{folder}")
                .trim_end_matches('/')
                .to_owned();
            let found = cycles(&folder_imports(&src, folder));
            match (keeping.contains(&path), found.is_empty()) {
                (false, false) => problems.push(format!(
                    "files of {path}/ reach each other through their imports: {found:?}"
                )),
                (true, true) => problems.push(format!(
                    "docs/ARCHITECTURE.md says the files of {path}/ keep a cycle; none is left"
                )),
                _ => {}
            }
            seen.push(path);
        }
    }
    assert!(
        seen.iter().any(|f| f == "kernel-build/src/front/parse")
            && seen
                .iter()
                .any(|f| f == "kernel-runtime-core/src/code/nvrtc")
    );
    for folder in &keeping {
        if !seen.contains(folder) {
            problems.push(format!(
                "docs/ARCHITECTURE.md names {folder}/, no folder of the crates"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The cycle check reads a folder's files as the code names them: a file that names another
/// through `crate::<folder>::` or `super::` imports it, and a loop of such names is found.
#[test]
fn a_cycle_between_files_is_found() {
    let dir = std::env::temp_dir().join(format!("layers-cycle-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("f")).unwrap();
    std::fs::write(dir.join("f/a.rs"), "use super::b::B;\npub struct A;\n").unwrap();
    std::fs::write(dir.join("f/b.rs"), "use crate::f::c::C;\npub struct B;\n").unwrap();
    std::fs::write(
        dir.join("f/c.rs"),
        "// super::a is named in a comment only\npub struct C;\n",
    )
    .unwrap();
    std::fs::write(dir.join("top.rs"), "use crate::other::X;\n").unwrap();
    std::fs::write(dir.join("other.rs"), "pub struct X;\n").unwrap();
    std::fs::write(dir.join("lib.rs"), "mod other; mod top;\n").unwrap();
    assert!(cycles(&folder_imports(&dir, "f")).is_empty());
    assert!(cycles(&folder_imports(&dir, "")).is_empty());
    std::fs::write(dir.join("f/c.rs"), "use super::a::A;\npub struct C;\n").unwrap();
    assert_eq!(
        cycles(&folder_imports(&dir, "f")),
        [
            ("a".to_owned(), "b".to_owned()),
            ("a".to_owned(), "c".to_owned()),
            ("b".to_owned(), "c".to_owned())
        ]
    );
    std::fs::write(dir.join("other.rs"), "use crate::top;\n").unwrap();
    assert_eq!(
        cycles(&folder_imports(&dir, "")),
        [("other".to_owned(), "top".to_owned())]
    );
    // A subfolder is one room: a file of it that names a file of the folder through
    // `super::super::`, named back by that file, is a cycle too; its tests are not read.
    std::fs::write(dir.join("f/c.rs"), "pub struct C;\n").unwrap();
    std::fs::create_dir_all(dir.join("f/g")).unwrap();
    std::fs::write(dir.join("f/g/mod.rs"), "mod h;\n").unwrap();
    std::fs::write(dir.join("f/g/h.rs"), "use super::super::c::C;\n").unwrap();
    std::fs::write(dir.join("f/g/tests.rs"), "use super::super::a::A;\n").unwrap();
    assert!(cycles(&folder_imports(&dir, "f")).is_empty());
    std::fs::write(dir.join("f/c.rs"), "pub use super::g::H;\n").unwrap();
    assert_eq!(
        cycles(&folder_imports(&dir, "f")),
        [("c".to_owned(), "g".to_owned())]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn runtime_folders_import_what_architecture_says() {
    let claims = import_claims(&architecture());
    let graph = imports(&workspace_root().join("kernel-runtime-core/src"));
    let modules = |named: &BTreeSet<String>| -> BTreeSet<String> {
        named
            .iter()
            .filter(|n| graph.contains_key(*n))
            .cloned()
            .collect()
    };
    assert!(
        claims
            .iter()
            .any(|(m, c)| m == "collective" && matches!(c, ImportClaim::Only(_))),
        "the row of collective/ says what it imports: {claims:?}"
    );
    let mut problems = Vec::new();
    for (module, claim) in &claims {
        let Some(named) = graph.get(module) else {
            problems.push(format!("`{module}` is no module of the runtime"));
            continue;
        };
        let imported = modules(named);
        match claim {
            ImportClaim::Nothing if !imported.is_empty() => problems.push(format!(
                "`{module}` is said to import nothing of the crate; it imports {imported:?}"
            )),
            ImportClaim::Only(said) if *said != imported => problems.push(format!(
                "`{module}` is said to import only {said:?}; it imports {imported:?}"
            )),
            ImportClaim::NotImported => {
                let users: Vec<&String> = graph
                    .iter()
                    .filter(|(m, n)| *m != module && n.contains(module))
                    .map(|(m, _)| m)
                    .collect();
                if !users.is_empty() {
                    problems.push(format!(
                        "nothing is said to import `{module}`; {users:?} do"
                    ));
                }
            }
            _ => {}
        }
    }
    assert!(
        problems.is_empty(),
        "docs/ARCHITECTURE.md's table of runtime folders:\n{}",
        problems.join("\n")
    );
}

#[test]
fn codegen_imports_the_model_alone() {
    // The layer paragraph of the build library says so; codegen takes a verified model and
    // nothing else, so that it cannot fail.
    let doc = architecture();
    let words: Vec<&str> = layer_paragraph(&doc, "cuda-kernel-build")
        .split_whitespace()
        .collect();
    assert!(
        words
            .join(" ")
            .contains("`codegen` importing the model alone"),
        "docs/ARCHITECTURE.md no longer says what codegen imports; change this test with it"
    );
    let graph = imports(&workspace_root().join("kernel-build/src"));
    let imported: Vec<&String> = graph["codegen"]
        .iter()
        .filter(|n| graph.contains_key(*n))
        .collect();
    assert_eq!(imported, ["model"], "codegen's imports");
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
    let code = code_of(
        "use crate::memory::{buffers::byte_len, pool};\nuse super::prepared::X;\nfn f() { crate::memory::ipc::g(); crate::device::h(); }\n",
    );
    let within: Vec<String> = paths_after(&code, "crate::memory::")
        .into_iter()
        .chain(paths_after(&code, "super::"))
        .collect();
    assert_eq!(within, ["buffers", "ipc", "pool", "prepared"]);
    assert_eq!(
        paths_after("super::super::validate; super::x", "super::"),
        BTreeSet::from(["super".to_owned(), "x".to_owned()])
    );
    let doc = "Layers of `cuda-kernel-build`, each:\n`env`, `model`,\n`front`.\nMore.\n\nNext.";
    assert_eq!(
        layer_list(layer_paragraph(doc, "cuda-kernel-build")),
        ["env", "model", "front"]
    );
    let doc = "Between the files of one folder two remain, `k/src/a/` (`x` and `y`) and `k/src/b/c/`; `d/`.";
    assert_eq!(documented_file_cycles(doc), ["k/src/a", "k/src/b/c"]);
    let doc = "| folder | concern |\n|---|---|\n| `a/` | x; imports nothing of the crate |\n\
               | `b/` | y. It imports only `a/`, `e` and `c/`, and nothing imports it |\n";
    assert_eq!(
        import_claims(doc),
        [
            ("a".to_owned(), ImportClaim::Nothing),
            (
                "b".to_owned(),
                ImportClaim::Only(["a", "c", "e"].map(str::to_owned).into())
            ),
            ("b".to_owned(), ImportClaim::NotImported),
        ]
    );
}

/// The backticked paths of the paragraph of docs/ARCHITECTURE.md that starts `start`, after
/// its first colon at a line's end, up to the next full stop.
fn documented_paths(doc: &str, start: &str) -> Vec<String> {
    let at = doc
        .find(start)
        .unwrap_or_else(|| panic!("docs/ARCHITECTURE.md has a paragraph starting {start:?}"));
    let para = &doc[at..];
    let para = &para[..para.find("\n\n").unwrap_or(para.len())];
    let list = &para[para.find(":\n").expect("the list follows a colon") + 2..];
    let list = &list[..list
        .find(".\n")
        .or_else(|| list.rfind('.'))
        .unwrap_or(list.len())];
    list.split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| w.contains('/'))
        .map(str::to_owned)
        .collect()
}

/// A raw call the code of a file makes: what it is and the line it is on.
#[derive(Debug, PartialEq)]
struct RawCall {
    what: &'static str,
    line: String,
}

/// Whether `name`, named after `sys::`, is a function of a binding (`cuMemAlloc_v2`,
/// `nvrtcCompileProgram`, `ncclAllReduce`, `domain_range_pop`) rather than a type or a
/// constant (`CUresult`, `nvrtcResult`, `ncclComm_t`, `ncclUniqueId`, the opaque
/// `ncclComm`).
fn is_function_name(name: &str, called: bool) -> bool {
    let lower = name.chars().next().is_some_and(|c| c.is_ascii_lowercase());
    let type_like = name.ends_with("_t")
        || name.ends_with("_enum")
        || matches!(
            name,
            "nvrtcResult" | "nvrtcProgram" | "ncclUniqueId" | "ncclComm"
        );
    lower && (called || !type_like)
}

/// The raw calls of `code` (comments and unit tests already left out): a `libloading` item,
/// a function of cudarc's checked `result` layer (`result::malloc_sync(`, an import of
/// `result`), a function of a binding's `sys` (`sys::cuMemAlloc_v2(`, an import of one), or
/// the shared loader of native libraries (`cuda_kernel_objects::native`).
fn raw_calls(code: &str) -> Vec<RawCall> {
    let mut out = Vec::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for line in code.lines() {
        let mut push = |what| {
            out.push(RawCall {
                what,
                line: line.trim().to_owned(),
            })
        };
        if line.contains("libloading") {
            push("libloading");
        }
        if [
            "cuda_kernel_objects::native",
            "crate::native",
            "native::Library",
        ]
        .iter()
        .any(|p| line.contains(p))
        {
            push("the native loader");
        }
        let is_use = line.trim_start().starts_with("use cudarc::")
            || line.trim_start().starts_with("pub(crate) use cudarc::");
        for (i, _) in line.match_indices("result::") {
            let before = &line[..i];
            let part_of_name = before
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            if !part_of_name && !before.ends_with("core::") && !before.ends_with("std::") {
                push("cudarc's result layer");
            }
        }
        if is_use
            && line
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == "result")
            && !line.contains("result::")
        {
            push("cudarc's result layer");
        }
        for (i, _) in line.match_indices("sys::") {
            if line[..i]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            let rest = &line[i + 5..];
            let names: Vec<String> = match rest.strip_prefix('{') {
                Some(group) => group[..group.find('}').unwrap_or(group.len())]
                    .split(',')
                    .map(|p| ident(p.trim()))
                    .collect(),
                None => vec![ident(rest)],
            };
            for name in names {
                let called = rest[name.len().min(rest.len())..]
                    .trim_start()
                    .starts_with('(');
                if !name.is_empty() && name != "self" && is_function_name(&name, called) {
                    push("a raw symbol (`sys::`)");
                }
            }
        }
    }
    out
}

/// The entry points a layer keeps in a table of function pointers: every name declared with
/// the type of a C function, `Option`al or not, or of an alias of one (`all_reduce: unsafe
/// extern "C" fn(`, `comm_split: Option<unsafe extern "C" fn(`, `cubin_size: SizeFn` after
/// `type SizeFn = unsafe extern "C" fn(`), but a `let`'s. A parameter of such a type counts
/// too; its name is never called through a field, so that costs nothing.
fn entry_points(code: &str) -> BTreeSet<String> {
    let flat = code.split_whitespace().collect::<Vec<_>>().join(" ");
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let is_c_fn =
        |t: &str| t.starts_with("unsafe extern \"C\" fn") || t.starts_with("extern \"C\" fn");
    let mut aliases = Vec::new();
    for (i, _) in flat.match_indices("type ") {
        let rest = &flat[i + 5..];
        let name = ident(rest);
        if let Some(def) = rest[name.len()..].trim_start().strip_prefix('=')
            && !name.is_empty()
            && is_c_fn(def.trim_start())
        {
            aliases.push(name);
        }
    }
    let mut out = BTreeSet::new();
    for (i, _) in flat.match_indices(':') {
        let (before, after) = (&flat[..i], flat[i + 1..].trim_start());
        if before.ends_with(':') || after.starts_with(':') {
            continue; // a path
        }
        let after = after.strip_prefix("Option<").map_or(after, str::trim_start);
        let typed = is_c_fn(after)
            || aliases
                .iter()
                .any(|a| after.starts_with(a.as_str()) && ident(after) == *a);
        let name = trailing_ident(before);
        let head = &before[..before.len() - name.len()];
        if typed && !name.is_empty() && !head.trim_end().ends_with("let") {
            out.insert(name.to_owned());
        }
    }
    out
}

/// The identifier `s` ends with (`(comm.nccl.all_reduce` → `all_reduce`), maybe empty.
fn trailing_ident(s: &str) -> &str {
    let start = s
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map_or(s.len(), |(i, _)| i);
    &s[start..]
}

/// The calls of `code` through a field named in `entries` (`(comm.nccl.all_reduce)(`,
/// `(self.api.create)(`): the field's name and the line.
fn entry_calls(code: &str, entries: &BTreeSet<String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in code.lines() {
        for (i, _) in line.match_indices(")(") {
            let before = &line[..i];
            let name = trailing_ident(before);
            let through_field = before[..before.len() - name.len()].ends_with('.');
            if through_field && entries.contains(name) {
                out.push((name.to_owned(), line.trim().to_owned()));
            }
        }
    }
    out
}

/// Every `.rs` file of the libraries' sources, as a path from the workspace root.
fn library_sources() -> Vec<(String, String)> {
    let root = workspace_root();
    let mut out = Vec::new();
    for krate in CRATES {
        let mut files = Vec::new();
        collect(&root.join(krate).join("src"), &mut files);
        for file in files {
            if file.ends_with("tests.rs") {
                continue;
            }
            let rel = file.strip_prefix(&root).unwrap();
            let rel = rel
                .iter()
                .map(|p| p.to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            out.push((rel, code_of(&std::fs::read_to_string(&file).unwrap())));
        }
    }
    out
}

/// Every Rust file and package manifest of the repository (the build folders, hidden folders
/// and this file, which names `libloading` to look for it, left out), with its text.
fn repository_files() -> Vec<(String, String)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "target" {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
                continue;
            }
            if !(name.ends_with(".rs") || name == "Cargo.toml") {
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .iter()
                .map(|p| p.to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            if rel != "tests/layers.rs" {
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let root = workspace_root();
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out
}

/// The lines of `file` (its `text`) that name `libloading`: in a Rust file, its code (comments
/// and unit tests left out); in a package's manifest, a line that is not a comment (the
/// workspace's manifest, which only pins the version packages inherit, has no `[package]`).
fn libloading_lines(file: &str, text: &str) -> Vec<String> {
    let lines: Vec<String> = if file.ends_with(".rs") {
        code_of(text).lines().map(str::to_owned).collect()
    } else if text.lines().any(|l| l.trim() == "[package]") {
        text.lines()
            .map(|l| l[..l.find('#').unwrap_or(l.len())].to_owned())
            .collect()
    } else {
        Vec::new()
    };
    lines
        .into_iter()
        .filter(|l| l.contains("libloading"))
        .map(|l| l.trim().to_owned())
        .collect()
}

/// Whether `file` lies in one of `places` (a file, or a folder ending in `/`).
fn within(file: &str, places: &[String]) -> bool {
    places
        .iter()
        .any(|p| file == p || (p.ends_with('/') && file.starts_with(p.as_str())))
}

#[test]
fn native_libraries_are_called_only_from_their_layers() {
    let doc = architecture();
    let layers = documented_paths(&doc, "Native libraries' layers");
    let loading = documented_paths(&doc, "`libloading` is named only in");
    assert!(
        layers.len() >= 6 && !loading.is_empty(),
        "docs/ARCHITECTURE.md lists the layers of the native libraries: {layers:?}, {loading:?}"
    );
    let root = workspace_root();
    let mut problems = Vec::new();
    for place in layers.iter().chain(&loading) {
        if !root.join(place).exists() {
            problems.push(format!(
                "docs/ARCHITECTURE.md names {place}, which does not exist"
            ));
        }
    }
    let sources = library_sources();
    assert!(sources.len() > 100, "{} files read", sources.len());
    // Each entry point a layer keeps in a table is called in a layer that declares it.
    let mut declared: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (file, code) in &sources {
        if let Some(place) = layers
            .iter()
            .find(|p| within(file, std::slice::from_ref(p)))
        {
            for entry in entry_points(code) {
                declared.entry(entry).or_default().push(place.clone());
            }
        }
    }
    for expected in [
        "all_reduce",
        "comm_abort",
        "group_end",
        "add_data",
        "add_cubin",
    ] {
        assert!(
            declared.contains_key(expected),
            "the tables of the layers read as {:?}",
            declared.keys()
        );
    }
    let entries: BTreeSet<String> = declared.keys().cloned().collect();
    for (file, code) in &sources {
        for (entry, line) in entry_calls(code, &entries) {
            if !within(file, &declared[&entry]) {
                problems.push(format!(
                    "{file}: a call of the entry point `{entry}` outside the layer that keeps \
                     it ({}): {line}",
                    declared[&entry].join(", ")
                ));
            }
        }
    }
    let mut loaders = BTreeSet::new();
    for (file, code) in &sources {
        for call in raw_calls(code) {
            if call.what == "libloading" {
                continue; // below, with every file of the repository
            }
            if !within(file, &layers) {
                problems.push(format!(
                    "{file}: {} outside the native libraries' layers: {}",
                    call.what, call.line
                ));
            }
        }
    }
    let files = repository_files();
    assert!(
        files.iter().any(|(f, _)| f == "kernel-runtime/Cargo.toml")
            && files.iter().any(|(f, _)| f.starts_with("examples/")),
        "the repository's files read as {} files",
        files.len()
    );
    for (file, text) in &files {
        for line in libloading_lines(file, text) {
            loaders.insert(file.clone());
            if !within(file, &loading) {
                problems.push(format!("{file}: libloading outside the loader: {line}"));
            }
        }
    }
    for place in &loading {
        if !loaders
            .iter()
            .any(|f| within(f, std::slice::from_ref(place)))
        {
            problems.push(format!(
                "docs/ARCHITECTURE.md says {place} names libloading; it does not"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_check_sees_tables_of_entry_points_and_their_calls() {
    let table = "type SizeFn = unsafe extern \"C\" fn(Handle, *mut usize) -> c_int;\n\
                 pub(crate) struct Nccl {\n\
                     pub(super) group_start: unsafe extern \"C\" fn() -> Code,\n\
                     pub(super) comm_init_rank:\n        unsafe extern \"C\" fn(*mut ncclComm_t, c_int) -> Code,\n\
                     /// Absent before NCCL 2.18.\n\
                     pub(super) comm_split: Option<\n        unsafe extern \"C\" fn(ncclComm_t) -> Code,\n    >,\n\
                     cubin_size: SizeFn,\n\
                     path: PathBuf,\n\
                     _library: Library,\n\
                 }\n\
                 fn f(lib: &Library) { let init: unsafe extern \"C\" fn(u32) -> i32 = lib.get(); }\n";
    assert_eq!(
        entry_points(&code_of(table)),
        ["comm_init_rank", "comm_split", "cubin_size", "group_start"]
            .map(str::to_owned)
            .into()
    );
    let entries: BTreeSet<String> = ["all_reduce", "cubin_size", "group_end"]
        .map(str::to_owned)
        .into();
    let calls = |code: &str| -> Vec<String> {
        entry_calls(&code_of(code), &entries)
            .into_iter()
            .map(|(entry, _)| entry)
            .collect()
    };
    assert_eq!(
        calls("let code = unsafe { (comm.nccl.all_reduce)(s, d, n, t, op, c, st) };"),
        ["all_reduce"]
    );
    assert_eq!(
        calls("unsafe { (self.group_end)() }; let rc = (self.api.cubin_size)(h, &mut n);"),
        ["group_end", "cubin_size"]
    );
    // The checked methods, closures kept in fields and comments are no raw calls.
    let none = "let queued = unsafe { comm.nccl.all_reduce(s, d, n, t, op, c, st) };\n\
                (self.lookup)(&name, false); nccl.group_end(&comms)?;\n\
                // (nccl.group_end)()\n";
    assert!(calls(none).is_empty(), "{:?}", calls(none));
}

#[test]
fn the_check_sees_raw_calls() {
    let whats = |code: &str| -> Vec<&'static str> {
        raw_calls(&code_of(code))
            .into_iter()
            .map(|c| c.what)
            .collect()
    };
    assert_eq!(
        whats("let p = unsafe { result::malloc_sync(4) };"),
        ["cudarc's result layer"]
    );
    assert_eq!(
        whats("cudarc::driver::result::stream::get_priority_range()"),
        ["cudarc's result layer"]
    );
    assert_eq!(
        whats("use cudarc::driver::{CudaStream, result};"),
        ["cudarc's result layer"]
    );
    assert_eq!(
        whats("unsafe { sys::cuMemAlloc_v2(&mut p, 4) }"),
        ["a raw symbol (`sys::`)"]
    );
    assert_eq!(
        whats("(sys::nvrtcGetCUBINSize, sys::nvrtcGetCUBIN)"),
        ["a raw symbol (`sys::`)", "a raw symbol (`sys::`)"]
    );
    assert_eq!(
        whats("use cudarc::nccl::sys::{ncclComm_t, ncclAllReduce};"),
        ["a raw symbol (`sys::`)"]
    );
    assert_eq!(
        whats("let lib = unsafe { libloading::Library::new(p) };"),
        ["libloading"]
    );
    assert_eq!(
        whats("use cuda_kernel_objects::native::Library;"),
        ["the native loader"]
    );
    assert_eq!(
        whats("pub(crate) use native::{native_capabilities, native_targets};"),
        Vec::<&str>::new()
    );
    // Types, constants, `Result` and comments are no calls.
    let none = "use cudarc::driver::sys::{self, CUresult};\n\
                fn f() -> std::result::Result<(), ::core::result::Result<u8, u8>> {}\n\
                if e == sys::CUresult::CUDA_ERROR_ASSERT || r == sys::nvrtcResult::NVRTC_SUCCESS {}\n\
                let c: sys::ncclComm_t = x; let id: sys::ncclUniqueId = y;\n\
                let f = sys::CUgraphInstantiate_flags(0);\n\
                // result::malloc_sync(4), libloading\n";
    assert_eq!(whats(none), Vec::<&str>::new());
    // Manifests: a package's dependency is named, the workspace's pin and comments are not.
    assert_eq!(
        libloading_lines(
            "a/Cargo.toml",
            "[package]\nname = \"a\"\n[dependencies]\nlibloading.workspace = true\n# libloading\n"
        ),
        ["libloading.workspace = true"]
    );
    assert!(
        libloading_lines(
            "Cargo.toml",
            "[workspace]\n[workspace.dependencies]\nlibloading = \"0.9\"\n"
        )
        .is_empty()
    );
    assert_eq!(
        libloading_lines(
            "benches/b.rs",
            "// libloading\nlet l = libloading::Library::new(p);\n"
        ),
        ["let l = libloading::Library::new(p);"]
    );
    let doc = "Native libraries' layers (a test):\n`a/b.rs` (x), `c/`;\nand `d/e.rs`.\nMore.\n\n";
    assert_eq!(
        documented_paths(doc, "Native libraries' layers"),
        ["a/b.rs", "c/", "d/e.rs"]
    );
}

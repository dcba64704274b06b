//! docs/ARCHITECTURE.md stays true about what it names. Each backticked word of the document
//! (fenced blocks left out) is read as one of these claims and checked against the repository:
//!
//! - a file path (`codegen/shell.rs`, `kernel-build/src/env_table.md`) or a folder
//!   (`memory/`, `tests/ui/`): a file or folder of the repository, named from the root, from a
//!   crate's folder, or as the tail of a path inside one;
//! - a package (`cuda-kernel-build`): a package of the workspace;
//! - a Rust name with an UpperCamelCase segment (`Build`, `pipeline::ModuleRequest`,
//!   `Labelled<L, T>`, `Error::NeedsRdc`): that segment is a `struct`, `enum`, `trait`, `type`
//!   or `union` of the workspace's sources, or a name of another crate or of CUDA listed in
//!   `EXTERNAL_NAMES`; a segment after it (`Type::member`) is a `fn`, field, variant,
//!   constant or associated type in a file that defines or implements the type; the lowercase
//!   segments before it are modules;
//! - a lowercase path (`front::verify`, `env::announce`): modules, then an item of any kind;
//! - a macro (`include_kernels!`): a `macro_rules!` or a `cuda-kernel-macros` function, or one
//!   of the standard library's;
//! - the first column of the `| module | concern |` table: a module.
//!
//! Figures about public items, in the sentences that name `scripts/public-api.sh` or "public
//! items", are computed as that script computes them: "ceiling N" is the script's ceiling for
//! the crate the document last named, and "N today" is the number of items in the crate's
//! rustdoc `all.html` (`cargo doc --no-deps`, in `target/architecture`). Any other figure there
//! is an error, so that no number goes stale. Every failure is printed with its line.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Names the document may use that the workspace does not define, with whose they are.
const EXTERNAL_NAMES: &[&str] = &[
    "Copy",         // std
    "Drop",         // std
    "Option",       // std
    "Result",       // std
    "TokenStream",  // proc-macro2
    "CudaContext",  // cudarc
    "CudaSlice",    // cudarc
    "DevicePtr",    // cudarc
    "DevicePtrMut", // cudarc
    "LaunchConfig", // cudarc
    "CUstream",     // the CUDA driver API
    "CUtensorMap",  // the CUDA driver API
];

/// First segments of paths into other crates or C++ namespaces, and the document's example of
/// a generated module, `k`: paths that start with them are not looked up.
const EXTERNAL_PATHS: &[&str] = &[
    "cc",     // cc::Build
    "cub",    // CUB's C++ namespace
    "std",    // the standard library
    "syn",    // syn::Error
    "cudarc", // cudarc
    "k",      // `k::load`, `k::METADATA`: the generated module of the document's example
];

/// Folders the document names that are not the repository's.
const OTHER_FOLDERS: &[&str] = &[
    "syntax/", // cxx's shared front end
    "tmp/",    // the staging folder inside the build cache
];

/// Macros of the standard library the document names.
const STD_MACROS: &[&str] = &["compile_error", "option_env"];

// ---------------------------------------------------------------------------------------------
// The document

/// A backticked word of the document, the line (from 1) it starts on and its byte offset.
struct Span<'a> {
    line: usize,
    at: usize,
    text: &'a str,
}

/// The backticked words of `text`, fenced code blocks left out.
fn spans(text: &str) -> Vec<Span<'_>> {
    let mut out = Vec::new();
    let mut in_fence = false;
    let mut open: Option<(usize, usize)> = None;
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        for (at, _) in line.match_indices('`') {
            match open.take() {
                None => open = Some((i + 1, start + at + 1)),
                Some((line, from)) => out.push(Span {
                    line,
                    at: from,
                    text: &text[from..start + at],
                }),
            }
        }
    }
    out
}

/// The spans that are paths: a `/` in them, and no space, `::`, `*`, `$`, `<` or `=` (code,
/// globs, variables, options); a file's last segment has a dot, a folder's path ends in `/`.
fn named_paths<'a>(spans: &[Span<'a>]) -> Vec<(usize, &'a str)> {
    spans
        .iter()
        .filter(|s| {
            let w = s.text;
            let folder = w.ends_with('/');
            let w = w.trim_end_matches('/');
            !w.is_empty()
                && !w.starts_with('/')
                && !w.contains(|c: char| c.is_whitespace() || "*$<=:(){}\"'@#".contains(c))
                && ((w.contains('/') && w.rsplit('/').next().is_some_and(|l| l.contains('.')))
                    || folder)
        })
        .map(|s| (s.line, s.text))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The repository

/// Every file and folder under `dir`, relative to `root`, with `/` separators (folders end in
/// `/`); build outputs, installed tools and version control left out.
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
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if path.is_dir() {
            out.push(format!("{rel}/"));
            walk(root, &path, out);
        } else {
            out.push(rel);
        }
    }
}

/// `front`, `__private`, `MACRO_KEYS`: a Rust identifier.
fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `Build`, `CUtensorMap`: an uppercase start, a lowercase letter, letters and digits only.
fn is_camel(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.contains(|c: char| c.is_ascii_lowercase())
        && s.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The words of a line of Rust: identifiers, and every other character on its own.
fn words(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        let ident = c.is_ascii_alphanumeric() || c == '_';
        match (ident, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(&line[s..i]);
                start = None;
            }
            _ => {}
        }
        if !ident && !c.is_whitespace() {
            out.push(&line[i..i + c.len_utf8()]);
        }
    }
    if let Some(s) = start {
        out.push(&line[s..]);
    }
    out
}

/// The lines of a file that are code: comments left out.
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim_start)
        .filter(|l| !l.starts_with("//"))
}

/// What the workspace's Rust sources define, by a scan of their words: `struct Foo` defines
/// `Foo` wherever it is written (generated items in `quote!` count too).
#[derive(Default)]
struct Sources {
    /// Each source file's text.
    files: Vec<String>,
    /// Type names (`struct`, `enum`, `trait`, `type`, `union`) → the files defining them.
    types: HashMap<String, Vec<usize>>,
    /// Module names (`mod x`).
    modules: HashSet<String>,
    /// Names of every kind: types, modules, functions, constants, statics, macros.
    items: HashSet<String>,
    /// `macro_rules!` names and the functions of `kernel-macros/src`.
    macros: HashSet<String>,
    /// The workspace's packages.
    packages: HashSet<String>,
}

impl Sources {
    fn read(root: &Path) -> Sources {
        let mut s = Sources::default();
        let mut dirs = vec![
            root.join("test-support"),
            root.join("examples"),
            root.join("tests"),
        ];
        for entry in std::fs::read_dir(root).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("kernel-") {
                dirs.push(entry.path().join("src"));
            }
            let manifest = entry.path().join("Cargo.toml");
            if let Ok(toml) = std::fs::read_to_string(&manifest) {
                s.add_package(&toml);
            }
        }
        let mut paths = Vec::new();
        for dir in &dirs {
            let mut found = Vec::new();
            walk(dir, dir, &mut found);
            paths.extend(
                found
                    .into_iter()
                    .filter(|f| f.ends_with(".rs"))
                    .map(|f| dir.join(f)),
            );
        }
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            let in_macros = path.starts_with(root.join("kernel-macros"));
            s.add_file(text, in_macros);
        }
        s
    }

    fn add_package(&mut self, toml: &str) {
        let name = toml
            .lines()
            .skip_while(|l| l.trim() != "[package]")
            .find_map(|l| l.strip_prefix("name = "));
        if let Some(name) = name {
            self.packages.insert(name.trim_matches('"').to_owned());
        }
    }

    fn add_file(&mut self, text: String, in_macros: bool) {
        let index = self.files.len();
        for line in code_lines(&text) {
            let w = words(line);
            for pair in w.windows(2) {
                let (kind, name) = (pair[0], pair[1]);
                if !is_ident(name) {
                    continue;
                }
                match kind {
                    "struct" | "enum" | "trait" | "type" | "union" => {
                        let files = self.types.entry(name.to_owned()).or_default();
                        if files.last() != Some(&index) {
                            files.push(index);
                        }
                    }
                    "mod" => {
                        self.modules.insert(name.to_owned());
                    }
                    "fn" if in_macros => {
                        self.macros.insert(name.to_owned());
                    }
                    "fn" | "const" | "static" => {}
                    _ => continue,
                }
                self.items.insert(name.to_owned());
            }
            for triple in w.windows(3) {
                if triple[..2] == ["macro_rules", "!"] {
                    self.macros.insert(triple[2].to_owned());
                    self.items.insert(triple[2].to_owned());
                }
            }
        }
        self.files.push(text);
    }

    /// Whether `ty` has a `member` (a `fn`, field, variant, constant or associated type) in a
    /// file that defines `ty` or has an `impl` naming it.
    fn has_member(&self, ty: &str, member: &str) -> bool {
        let defining = self.types.get(ty).map_or(&[][..], Vec::as_slice);
        self.files.iter().enumerate().any(|(i, text)| {
            let implements = || {
                code_lines(text).any(|l| {
                    (l.starts_with("impl") || l.starts_with("unsafe impl"))
                        && words(l).contains(&ty)
                })
            };
            (defining.contains(&i) || implements()) && defines_member(text, member)
        })
    }
}

/// Whether `text` has `fn member`, `const member`, `type member`, a field `member:` or a
/// variant (a line that starts with `member` and then ends or has a `,`, `(`, `{` or `=`).
fn defines_member(text: &str, member: &str) -> bool {
    code_lines(text).any(|line| {
        let w = words(line);
        let variant = w.first() == Some(&member)
            && w.get(1).is_none_or(|n| matches!(*n, "," | "(" | "{" | "="));
        let item = w
            .windows(2)
            .any(|p| matches!(p[0], "fn" | "const" | "type") && p[1] == member);
        let field = (0..w.len())
            .any(|i| w[i] == member && w.get(i + 1) == Some(&":") && w.get(i + 2) != Some(&":"));
        variant || item || field
    })
}

// ---------------------------------------------------------------------------------------------
// Claims about names

/// A span read as a Rust path: `a::B::c` with an optional generic list, call or struct
/// expression after it (`Labelled<L, T>`, `P::new(..)`, `StructDef { .. }`, `vector::*`).
fn rust_path(span: &str) -> Option<Vec<&str>> {
    let mut segments = Vec::new();
    let mut rest = span;
    loop {
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let segment = &rest[..end];
        if !is_ident(segment) {
            return None;
        }
        segments.push(segment);
        rest = &rest[end..];
        match rest.strip_prefix("::") {
            Some(next) if next.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') => {
                rest = next;
            }
            _ => break,
        }
    }
    let tail_ok = rest.is_empty()
        || rest.starts_with('<')
        || rest.starts_with('(')
        || rest.starts_with(" {")
        || rest == "::*";
    tail_ok.then_some(segments)
}

/// What is wrong with the name `span` claims, if it claims one.
fn check_name(sources: &Sources, span: &str) -> Option<String> {
    if let Some(name) = span.strip_suffix('!').filter(|n| is_ident(n)) {
        let known = sources.macros.contains(name) || STD_MACROS.contains(&name);
        return (!known).then(|| format!("no macro `{name}!`"));
    }
    if span.starts_with("cuda-kernel-")
        && !span.contains(|c: char| c.is_whitespace() || "*/".contains(c))
    {
        let known = sources.packages.contains(span);
        return (!known).then(|| "no such package in the workspace".to_owned());
    }
    let segments = rust_path(span)?;
    if EXTERNAL_PATHS.contains(&segments[0]) {
        return None;
    }
    let is_module = |m: &&str| {
        sources.modules.contains(*m)
            || (m.starts_with("cuda_kernel_") && sources.packages.contains(&m.replace('_', "-")))
    };
    let Some(t) = segments.iter().position(|s| is_camel(s)) else {
        // A lowercase path: modules, then an item.
        if segments.len() < 2 {
            return None;
        }
        let (last, modules) = segments.split_last().unwrap();
        if modules[0].starts_with(|c: char| c.is_ascii_uppercase()) {
            // `P::new(..)`: a type parameter or a generated alias.
            return None;
        }
        if let Some(m) = modules.iter().find(|m| !is_module(m)) {
            return Some(format!("no module `{m}`"));
        }
        let known = sources.items.contains(*last);
        return (!known).then(|| format!("no item `{last}`"));
    };
    let ty = segments[t];
    if EXTERNAL_NAMES.contains(&ty) {
        return None;
    }
    if !sources.types.contains_key(ty) {
        return Some(format!("no struct, enum, trait, type or union `{ty}`"));
    }
    if let Some(m) = segments[..t].iter().find(|m| !is_module(m)) {
        return Some(format!("no module `{m}`"));
    }
    if let [member] = &segments[t + 1..]
        && !sources.has_member(ty, member)
    {
        return Some(format!(
            "`{ty}` has no fn, field, variant, constant or type `{member}`"
        ));
    }
    None
}

/// The first column of the rows of the `| module | concern |` table.
fn module_rows(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut in_table = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("| module |") {
            in_table = true;
            continue;
        }
        if !line.starts_with('|') {
            in_table = false;
        }
        if in_table {
            let cell = line.split('|').nth(1).unwrap_or("");
            for word in cell.split('`').skip(1).step_by(2) {
                if is_ident(word) {
                    out.push((i + 1, word));
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Figures about public items

/// A figure the document states about a crate's public items.
#[derive(Debug, PartialEq)]
enum Figure {
    /// "ceiling N": the crate's ceiling in scripts/public-api.sh.
    Ceiling(usize),
    /// "N today", "N public items": how many rustdoc lists.
    Count(usize),
}

/// The figures of the sentences that name `scripts/public-api.sh` or public items, each with
/// its line and the crate the document last named before it; a figure in such a sentence
/// that is neither kind is an error.
fn public_item_figures(text: &str) -> Result<Vec<(usize, String, Figure)>, Vec<String>> {
    const ENDS: [&str; 3] = ["\n\n", ". ", ".\n"];
    let spans = spans(text);
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let mut sentences = std::collections::BTreeSet::new();
    for needle in ["public-api.sh", "public item"] {
        for (at, _) in text.match_indices(needle) {
            let start = ENDS
                .iter()
                .filter_map(|end| text[..at].rfind(end).map(|p| p + end.len()))
                .max()
                .unwrap_or(0);
            let end = ENDS
                .iter()
                .filter_map(|end| text[at..].find(end).map(|p| at + p))
                .min()
                .unwrap_or(text.len());
            sentences.insert((start, end));
        }
    }
    let mut figures = Vec::new();
    let mut errors = Vec::new();
    for (start, end) in sentences {
        let sentence = &text[start..end];
        let mut i = 0;
        while let Some(p) = sentence[i..].find(|c: char| c.is_ascii_digit()) {
            let from = i + p;
            let to = sentence[from..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(sentence.len(), |q| from + q);
            i = to;
            let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            if word(sentence[..from].chars().next_back()) || word(sentence[to..].chars().next()) {
                continue; // `sm_90`, PyO3: part of a name
            }
            let value: usize = sentence[from..to].parse().unwrap();
            let (at, line) = (start + from, line_of(start + from));
            let figure = if sentence[..from].trim_end().ends_with("ceiling") {
                Figure::Ceiling(value)
            } else if ["today", "public item"]
                .iter()
                .any(|w| sentence[to..].trim_start().starts_with(w))
            {
                Figure::Count(value)
            } else {
                errors.push(format!(
                    "line {line}: `{value}` is a figure the test cannot check; point at \
                     scripts/public-api.sh instead"
                ));
                continue;
            };
            let package = spans
                .iter()
                .rev()
                .find(|s| s.at < at && s.text.starts_with("cuda-kernel-"));
            match package {
                Some(s) => figures.push((line, s.text.to_owned(), figure)),
                None => errors.push(format!("line {line}: `{value}` follows no crate name")),
            }
        }
    }
    if errors.is_empty() {
        Ok(figures)
    } else {
        Err(errors)
    }
}

/// The ceilings of scripts/public-api.sh's `declare -A ceiling=([crate]=N ...)`.
fn ceilings(script: &str) -> HashMap<String, usize> {
    let line = script
        .lines()
        .find(|l| l.starts_with("declare -A ceiling="))
        .expect("scripts/public-api.sh declares its ceilings");
    line.split('[')
        .skip(1)
        .filter_map(|entry| {
            let (name, rest) = entry.split_once("]=")?;
            let n = rest.split(|c: char| !c.is_ascii_digit()).next()?;
            Some((name.to_owned(), n.parse().ok()?))
        })
        .collect()
}

/// The items of a rustdoc `all.html`, counted as scripts/public-api.sh counts them: the
/// matches of `<li><a href="[^"]*">[^<]*</a></li>`.
fn count_items(html: &str) -> usize {
    let mut n = 0;
    let mut rest = html;
    while let Some(p) = rest.find("<li><a href=\"") {
        rest = &rest[p + "<li><a href=\"".len()..];
        let Some(q) = rest.find('"') else { break };
        if rest[..q].contains('\n') {
            continue;
        }
        let after = &rest[q + 1..];
        let Some(text) = after.strip_prefix('>') else {
            continue;
        };
        let close = text.find('<').unwrap_or(text.len());
        if !text[..close].contains('\n') && text[close..].starts_with("</a></li>") {
            n += 1;
            rest = &text[close..];
        }
    }
    n
}

/// How many public items rustdoc lists for `package`, documented as scripts/public-api.sh
/// documents it; `None` where cargo cannot be run (a machine the tests were carried to).
fn public_items(root: &Path, package: &str) -> Option<usize> {
    let target = root.join("target/architecture");
    let out = Command::new(kernel_test_support::cargo())
        .args(["doc", "-q", "-p", package, "--no-deps"])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", &target)
        // Set for this test by cargo; the documented crate has its own.
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "cargo doc -p {package} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page: PathBuf = target
        .join("doc")
        .join(package.replace('-', "_"))
        .join("all.html");
    Some(count_items(&std::fs::read_to_string(page).unwrap()))
}

// ---------------------------------------------------------------------------------------------
// Tests

fn document() -> (PathBuf, String) {
    let root = kernel_test_support::workspace_root();
    let text = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    (root, text)
}

/// Fails with every problem, one per line.
fn report(what: &str, problems: &[String]) {
    assert!(
        problems.is_empty(),
        "docs/ARCHITECTURE.md {what}:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_path_architecture_names_exists() {
    let (root, text) = document();
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    let spans = spans(&text);
    let named = named_paths(&spans);
    assert!(named.len() > 20, "only {} paths found", named.len());
    let missing: Vec<String> = named
        .iter()
        .filter(|(_, p)| {
            !OTHER_FOLDERS.contains(p)
                && !files
                    .iter()
                    .any(|f| f == *p || f.ends_with(&format!("/{p}")))
        })
        .map(|(line, p)| format!("line {line}: `{p}`"))
        .collect();
    report("names paths that do not exist", &missing);
}

#[test]
fn every_name_architecture_uses_is_defined() {
    let (root, text) = document();
    let sources = Sources::read(&root);
    let spans = spans(&text);
    let mut checked = 0;
    let mut problems = Vec::new();
    for span in &spans {
        if rust_path(span.text).is_some() || span.text.ends_with('!') {
            checked += 1;
        }
        if let Some(why) = check_name(&sources, span.text) {
            problems.push(format!("line {}: `{}`: {why}", span.line, span.text));
        }
    }
    for (line, module) in module_rows(&text) {
        if !sources.modules.contains(module) {
            problems.push(format!("line {line}: `{module}`: no module `{module}`"));
        }
    }
    assert!(checked > 100, "only {checked} names found");
    report("names what the sources do not define", &problems);
}

#[test]
fn every_external_name_is_used_and_not_the_workspace_s() {
    let (root, text) = document();
    let sources = Sources::read(&root);
    let spans = spans(&text);
    for name in EXTERNAL_NAMES {
        let used = spans
            .iter()
            .any(|s| rust_path(s.text).is_some_and(|p| p.contains(name)));
        assert!(
            used,
            "`{name}` is allowed but docs/ARCHITECTURE.md does not name it"
        );
        assert!(
            !sources.types.contains_key(*name),
            "`{name}` is allowed as another crate's but the workspace defines it"
        );
    }
}

#[test]
fn public_item_figures_are_today_s() {
    let (root, text) = document();
    let figures = public_item_figures(&text).unwrap_or_else(|errors| {
        report("states figures about public items", &errors);
        unreachable!()
    });
    let script = std::fs::read_to_string(root.join("scripts/public-api.sh")).unwrap();
    let ceilings = ceilings(&script);
    let mut counts = HashMap::new();
    let mut problems = Vec::new();
    for (line, package, figure) in figures {
        let (stated, truth) = match figure {
            Figure::Ceiling(n) => (n, ceilings.get(&package).copied()),
            Figure::Count(n) => {
                let count = match counts.get(&package) {
                    Some(c) => *c,
                    None => {
                        let Some(c) = public_items(&root, &package) else {
                            println!("skipped: cargo cannot be run here to count public items");
                            return;
                        };
                        counts.insert(package.clone(), c);
                        c
                    }
                };
                (n, Some(count))
            }
        };
        match truth {
            None => problems.push(format!(
                "line {line}: `{package}` has no ceiling in scripts/public-api.sh"
            )),
            Some(t) if t != stated => problems.push(format!(
                "line {line}: {package}: {stated} stated, {t} by scripts/public-api.sh's rule"
            )),
            Some(_) => {}
        }
    }
    report("states stale figures about public items", &problems);
}

#[test]
fn paths_are_told_from_code_and_globs() {
    let text = "see `codegen/shell.rs`, `a::b`, `x = 1`, `kernels/*.cu`, `$OUT_DIR/k.rs`, \
                `src/`, `a/b` and\n```\n`in/a.fence`\n```\n";
    let spans = spans(text);
    let paths: Vec<_> = named_paths(&spans).into_iter().map(|(_, p)| p).collect();
    assert_eq!(paths, ["codegen/shell.rs", "src/"]);
}

#[test]
fn names_are_read_as_paths() {
    assert_eq!(rust_path("Labelled<L, T>"), Some(vec!["Labelled"]));
    assert_eq!(rust_path("a::B::c"), Some(vec!["a", "B", "c"]));
    assert_eq!(rust_path("P::new(name, size)"), Some(vec!["P", "new"]));
    assert_eq!(rust_path("vector::*"), Some(vec!["vector"]));
    assert_eq!(rust_path("Cargo.toml"), None);
    assert_eq!(rust_path("T*"), None);
    assert_eq!(rust_path("Unresolved extern function"), None);
    assert!(is_camel("CUtensorMap") && !is_camel("NUM_JOBS") && !is_camel("T"));
}

#[test]
fn a_made_up_name_is_caught() {
    let mut sources = Sources::default();
    sources.add_file(
        "pub mod front;\npub struct Build { pub jobs: usize }\nimpl Build {\n    pub fn files(&mut self) {}\n}\npub enum Error {\n    NeedsRdc,\n    Io(std::io::Error),\n}\n".to_owned(),
        false,
    );
    for ok in [
        "Build",
        "Build::files",
        "Build::jobs",
        "Error::Io",
        "Error::NeedsRdc",
        "CudaSlice",
    ] {
        assert_eq!(check_name(&sources, ok), None, "{ok}");
    }
    for bad in [
        "Builder",
        "Build::run",
        "Error::Missing",
        "back::Build",
        "front::nothing",
    ] {
        assert!(check_name(&sources, bad).is_some(), "{bad}");
    }
}

#[test]
fn figures_are_read_with_their_crate() {
    let text = "`cuda-kernel-build` is counted by `scripts/public-api.sh` (ceiling 30; 27 today).\n\n\
                Other text with 12 in it.";
    assert_eq!(
        public_item_figures(text).unwrap(),
        [
            (1, "cuda-kernel-build".to_owned(), Figure::Ceiling(30)),
            (1, "cuda-kernel-build".to_owned(), Figure::Count(27)),
        ]
    );
    assert!(public_item_figures("`cuda-kernel-build`: 3 public-api.sh runs.").is_err());
    assert_eq!(
        count_items("<li><a href=\"a.html\">A</a></li><li><a href=\"b\">B</a></li>"),
        2
    );
    let script = "declare -A ceiling=([cuda-kernel-build]=30 [cuda-kernel-objects]=32)";
    assert_eq!(ceilings(script)["cuda-kernel-objects"], 32);
}

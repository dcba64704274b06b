//! The same stubs with nvcc and without: every module of the repository (each `cuda_module!`
//! of the `tests` crate and of the examples, each module of the example build script) is
//! expanded twice, once compiled by nvcc and once read without it (as
//! `KERNEL_BUILD_NO_DEVICE_CODE=1` and docs.rs build), and the two generated modules must
//! declare the same items: every stub's signature and docs, every struct, enum and re-export,
//! every layout assertion, every exported constant, the kernels' parameter records. What only
//! a compile can give (the embedded image, the compiled targets, the toolkit's version,
//! registers per kernel) and the no-device note are left out of the comparison.
//!
//! Skipped, with the reason, without nvcc.

mod support;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use cuda_kernel_build::__private::macros::cuda_module_in;
use cuda_kernel_build::__private::{
    Context, ModuleRequest, RustTypesFile, SourceInput, build_module, script_module,
};
use proc_macro2::{Delimiter, TokenStream, TokenTree};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// Every `cuda_module! { ... }` of `file`, wherever it stands (items, function bodies).
fn invocations(file: &Path) -> Vec<TokenStream> {
    let text = std::fs::read_to_string(file).unwrap();
    let tokens: TokenStream = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut found = Vec::new();
    collect(tokens, &mut found);
    found
}

fn collect(tokens: TokenStream, found: &mut Vec<TokenStream>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        if let TokenTree::Group(g) = tree {
            let named = matches!(
                (i.checked_sub(2).map(|j| &trees[j]), i.checked_sub(1).map(|j| &trees[j])),
                (Some(TokenTree::Ident(id)), Some(TokenTree::Punct(p)))
                    if id == "cuda_module" && p.as_char() == '!'
            );
            if named && g.delimiter() == Delimiter::Brace {
                found.push(g.stream());
            } else {
                collect(g.stream(), found);
            }
        }
    }
}

/// The generated module with what only a compile gives taken out, laid out as text.
fn comparable(module: &str) -> String {
    let mut file: syn::File =
        syn::parse_str(module).unwrap_or_else(|e| panic!("unparsable module ({e}):\n{module}"));
    file.items.retain(|item| !is_compile_only(item));
    for item in &mut file.items {
        strip(item);
    }
    prettyplease::unparse(&file)
}

/// An item only a compile or the no-device note gives.
fn is_compile_only(item: &syn::Item) -> bool {
    match item {
        syn::Item::Static(s) => s.ident == "IMAGE" || s.ident == "METADATA",
        syn::Item::Const(c) => c.ident == "REGISTERS",
        syn::Item::Fn(f) => f
            .sig
            .ident
            .to_string()
            .starts_with("__kernel_build_warning"),
        _ => false,
    }
}

/// Takes the compiled targets, the toolkit and the units out of `METADATA`, and the
/// registers out of the stubs' docs, inside `item`.
fn strip(item: &mut syn::Item) {
    match item {
        syn::Item::Mod(m) => {
            if let Some((_, items)) = &mut m.content {
                items.retain(|i| !is_compile_only(i));
                // The files the module tracks, in one order (the compile lists its
                // dependencies in its own).
                let tracked: Vec<usize> = (0..items.len())
                    .filter(|&i| {
                        matches!(&items[i], syn::Item::Const(c) if c.ident == "_"
                            && quote::quote!(#c).to_string().contains("include_bytes"))
                    })
                    .collect();
                let mut sorted: Vec<syn::Item> =
                    tracked.iter().map(|&i| items[i].clone()).collect();
                sorted.sort_by_key(|i| quote::quote!(#i).to_string());
                for (&at, item) in tracked.iter().zip(sorted) {
                    items[at] = item;
                }
                for i in items {
                    strip(i);
                }
            }
        }
        syn::Item::Impl(imp) => {
            for i in &mut imp.items {
                if let syn::ImplItem::Fn(f) = i {
                    for a in &mut f.attrs {
                        without_compiled(a);
                    }
                }
            }
        }
        _ => {}
    }
}

/// A stub's doc line without what the images tell: its symbol (a C++ kernel's is the
/// compiler's) and its registers (`; 10 registers per thread on sm_75, ...`).
fn without_compiled(attr: &mut syn::Attribute) {
    let syn::Meta::NameValue(nv) = &mut attr.meta else {
        return;
    };
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(s),
        ..
    }) = &nv.value
    else {
        return;
    };
    let text = s.value();
    if let Some(at) = text
        .find(", symbol `")
        .filter(|_| text.contains("CUDA: `__global__"))
    {
        let kept = format!("{}.", &text[..at]);
        nv.value = syn::parse_quote!(#kept);
    }
}

/// The two expansions of one `cuda_module!` of the crate in `crate_dir`, or `None` when even
/// nvcc's build gives an error (that expansion is the no-device one, by construction).
fn compare_macro(crate_dir: &Path, tokens: TokenStream, what: &str) -> Option<String> {
    let compiled = cuda_module_in(tokens.clone(), crate_dir, false).to_string();
    let read = cuda_module_in(tokens, crate_dir, true).to_string();
    if compiled.contains("compile_error") {
        eprintln!("note: {what}: the build with nvcc fails; its stubs are the read ones");
        return None;
    }
    assert!(
        !read.contains("compile_error"),
        "{what}: read without nvcc:\n{read}"
    );
    Some(difference(&comparable(&compiled), &comparable(&read)))
}

/// The lines one text has and the other lacks (counted), or an empty string; both texts
/// are written beside the test's other outputs when they differ.
fn difference(compiled: &str, read: &str) -> String {
    if compiled == read {
        return String::new();
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("same_stubs");
    std::fs::create_dir_all(&dir).unwrap();
    let key = &blake3::hash(compiled.as_bytes()).to_hex()[..12];
    let (with, without) = (
        dir.join(format!("{key}.nvcc.rs")),
        dir.join(format!("{key}.read.rs")),
    );
    std::fs::write(&with, compiled).unwrap();
    std::fs::write(&without, read).unwrap();
    let mut out = format!(
        "  (whole modules: {} and {})\n",
        with.display(),
        without.display()
    );
    for (name, a, b) in [
        ("with nvcc only", compiled, read),
        ("without nvcc only", read, compiled),
    ] {
        let mut rest: Vec<&str> = b.lines().collect();
        for line in a.lines() {
            match rest.iter().position(|l| *l == line) {
                Some(i) => {
                    rest.remove(i);
                }
                None => out.push_str(&format!("  {name}: {line}\n")),
            }
        }
    }
    if !out.contains("nvcc only:") {
        out.push_str("  the same lines in another order\n");
    }
    out
}

/// Modules whose two builds still differ, each with why: the build without nvcc lacks
/// kernels that only a compile can tell (or, for one, places a kernel a column apart). A
/// module here that no longer differs fails the test, so that the list only shrinks.
const KNOWN: &[(&str, &str)] = &[
    (
        "tests/arch_gated.rs",
        "kernels written through a function-like macro: without nvcc only object-like macros \
         are expanded",
    ),
    (
        "tests/library_types.rs",
        "a kernel taking toolkit structs (`cudaExtent`): without nvcc no toolkit header is read",
    ),
    (
        "tests/real_forms.rs",
        "instantiations named by the host code's launches and a kernel taking a lambda: only \
         nvcc's host pass and the images tell them",
    ),
    (
        "build-rs-crate/build.rs (module hosted)",
        "CUB's kernels, instantiated inside CUB's headers by the host code",
    ),
    (
        "build-rs-crate/build.rs (module gemm)",
        "CUTLASS's kernels, instantiated inside CUTLASS's headers by the host code",
    ),
    (
        "tests/packed_layouts.rs",
        "an alignment given through a function-like macro (`ALIGNED(32)`): without nvcc only \
         object-like macros are expanded",
    ),
    (
        "tests/device_assert.rs",
        "the kernel's column in the docs: nvcc's view of an inline source after `#include \
         <cassert>` places it one column left",
    ),
];

/// Whether the difference of `what` is a known one, checked as [`KNOWN`] says.
fn known(what: &str, diff: &str) -> bool {
    let Some((_, why)) = KNOWN.iter().find(|(m, _)| what.contains(m)) else {
        return false;
    };
    assert!(
        !diff.is_empty(),
        "{what} no longer differs ({why}): take it off KNOWN"
    );
    eprintln!("note: {what}: known difference: {why}");
    true
}

#[test]
fn every_module_has_the_same_stubs_with_and_without_nvcc() {
    if support::real_nvcc().is_none() {
        return;
    }
    let root = workspace();
    let mut compared = 0;
    let mut problems = String::new();
    // Every module of the two crates, in order: (crate folder, file, which invocation).
    let mut jobs: Vec<(PathBuf, PathBuf, usize)> = Vec::new();
    for (crate_dir, folder) in [("tests", "tests"), ("examples", "examples")] {
        let crate_dir = root.join(crate_dir);
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        files.sort();
        for file in files {
            let count = invocations(&file).len();
            jobs.extend((0..count).map(|i| (crate_dir.clone(), file.clone(), i)));
        }
    }
    // Each module's two expansions on a worker of its own: a cold cache means an nvcc run
    // per module, most of them on one core. Tokens are not `Send`: each worker reads its
    // module's invocation from the file again.
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, String, Option<String>)>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let at = next.fetch_add(1, Ordering::Relaxed);
                    let Some((crate_dir, file, i)) = jobs.get(at) else {
                        break;
                    };
                    let tokens = invocations(file).swap_remove(*i);
                    let what = format!("{} (module {})", file.display(), i + 1);
                    let diff = compare_macro(crate_dir, tokens, &what);
                    results.lock().unwrap().push((at, what, diff));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.0);
    for (_, what, diff) in results {
        if let Some(diff) = diff {
            compared += 1;
            if !known(&what, &diff) && !diff.is_empty() {
                problems.push_str(&format!("{what}:\n{diff}\n"));
            }
        }
    }
    for script in [root.join("examples/build-rs-crate/build.rs")] {
        let crate_dir = script.parent().unwrap();
        for (req, _host_code) in script_requests(&script) {
            let req = with_dir(&req, crate_dir);
            let what = format!("{} (module {})", script.display(), req.name);
            let runtime: syn::Path = syn::parse_quote!(::cuda_kernel_runtime);
            let compiled = match build_module(&req, &Context::default()) {
                Ok(m) => script_module(&m, &req, &runtime),
                Err(e) => {
                    eprintln!("note: {what}: the build with nvcc fails ({e})");
                    continue;
                }
            };
            let cx = Context {
                no_device_code: true,
                ..Context::default()
            };
            let read = build_module(&req, &cx)
                .unwrap_or_else(|e| panic!("{what}: read without nvcc: {e}"));
            let read = script_module(&read, &req, &runtime);
            let diff = difference(&comparable(&compiled), &comparable(&read));
            compared += 1;
            if !known(&what, &diff) && !diff.is_empty() {
                problems.push_str(&format!("{what}:\n{diff}\n"));
            }
        }
    }
    assert!(problems.is_empty(), "{problems}");
    // The tests crate alone has over fifty modules; most build with nvcc.
    assert!(compared >= 40, "only {compared} modules compared");
}

fn with_dir(req: &ModuleRequest, dir: &Path) -> ModuleRequest {
    let mut req = req.clone();
    req.base_dir = dir.to_path_buf();
    req
}

/// The modules a build script makes, read from its `Build::new()...compile("name")` chains
/// (each with whether it asks for host code, which the generated module does not show).
/// A method the reading does not know fails the test, so that a new one is taught here.
fn script_requests(script: &Path) -> Vec<(ModuleRequest, bool)> {
    let text = std::fs::read_to_string(script).unwrap();
    let file: syn::File = syn::parse_str(&text).unwrap();
    let mut out = Vec::new();
    for item in file.items {
        let syn::Item::Fn(f) = item else { continue };
        for stmt in f.block.stmts {
            let syn::Stmt::Expr(expr, _) = stmt else {
                continue;
            };
            out.push(chain(&expr, script));
        }
    }
    assert!(!out.is_empty(), "no module in {}", script.display());
    out
}

fn lit_str(e: &syn::Expr) -> String {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => s.value(),
        other => panic!(
            "expected a string literal, found `{}`",
            quote::quote!(#other)
        ),
    }
}

fn lit_strs(e: &syn::Expr) -> Vec<String> {
    match e {
        syn::Expr::Array(a) => a.elems.iter().map(lit_str).collect(),
        other => vec![lit_str(other)],
    }
}

/// One `Build::new().x(..).y(..).compile("name")` chain as the request `Build` makes.
fn chain(expr: &syn::Expr, script: &Path) -> (ModuleRequest, bool) {
    let mut calls = Vec::new();
    let mut e = expr;
    while let syn::Expr::MethodCall(m) = e {
        calls.push((
            m.method.to_string(),
            m.args.iter().cloned().collect::<Vec<_>>(),
        ));
        e = &m.receiver;
    }
    calls.reverse();
    let mut req = ModuleRequest::new(
        "unnamed",
        SourceInput::Inline {
            text: String::new(),
        },
    );
    let mut files: Vec<PathBuf> = Vec::new();
    let mut host_code = false;
    for (method, args) in calls {
        match method.as_str() {
            "file" => files.push(lit_str(&args[0]).into()),
            "files" => files.extend(lit_strs(&args[0]).into_iter().map(PathBuf::from)),
            "include" => req.includes.push(lit_str(&args[0]).into()),
            "define" => {
                let value = match &args[1] {
                    syn::Expr::Path(p) if p.path.is_ident("None") => None,
                    v => Some(lit_str(v)),
                };
                req.define(&lit_str(&args[0]), value.as_deref()).unwrap();
            }
            "arch" => req
                .archs
                .get_or_insert_with(Vec::new)
                .push(lit_str(&args[0])),
            "archs" => req
                .archs
                .get_or_insert_with(Vec::new)
                .extend(lit_strs(&args[0])),
            "flag" => req.flags.push(lit_str(&args[0])),
            "rust_types" => req.rust_types.push(RustTypesFile {
                file: lit_str(&args[0]).into(),
                module: None,
            }),
            "host_code" => host_code = true,
            "compile" => req.name = lit_str(&args[0]),
            other => panic!(
                "{}: this test does not read `Build::{other}` yet: teach `chain` what it sets",
                script.display()
            ),
        }
    }
    req.source = match files.as_slice() {
        [one] => SourceInput::File { path: one.clone() },
        _ => SourceInput::Files {
            paths: files.clone(),
        },
    };
    req.user_dirs = files
        .iter()
        .filter_map(|f| f.parent().map(Path::to_path_buf))
        .collect();
    (req, host_code)
}

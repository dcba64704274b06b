//! The CUDA declaration front end: preprocessing, parsing, the C type model and names.
//! What it reads is checked against the compiled images afterwards, by `verify`.
//!
//! ```text
//! raw text ──preprocess (nvcc -E)──▶ linemap::filter (user's files only)
//!          └─(no nvcc)──▶ raw::expand_for (conditionals, object-like macros) + notes
//!     ──lexer──▶ parse (declarations with locations) ──analyze/types──▶ ModuleInfo
//! ```
//!
//! With nvcc, the front end reads the preprocessed text, so macros that spell
//! `__global__`, `#if`, and typedefs from the user's headers all work; line markers
//! map every location back to the original file and line. Without nvcc, it reads
//! the raw text and records that in [`ModuleInfo::notes`].

pub mod expr;
pub mod lexer;
pub mod linemap;
pub mod names;
pub mod parse;
pub mod raw;
pub mod types;

mod analyze;
mod docs;
mod launched;
mod merge;
mod preprocess;
mod views;

use std::path::{Path, PathBuf};

use crate::diagnostics::{Diagnostic, Diagnostics, front as msg};
use crate::model::{ModuleInfo, SourceLoc};

pub(crate) use analyze::{is_stream, readable, unread};
pub(crate) use linemap::included_files;
pub use preprocess::preprocess;
pub(crate) use views::read_views;
pub use views::{DeviceView, read_kept_views};

/// One CUDA source handed to the front end.
#[derive(Clone, Copy, Debug)]
pub struct FrontInput<'a> {
    /// The file name used in messages.
    pub display_name: &'a str,
    /// The source text as the user wrote it.
    pub raw: &'a str,
    /// `nvcc -E` output for the file, or `None` without nvcc.
    pub preprocessed: Option<&'a str>,
    /// The path nvcc saw, to find the main file's line markers.
    pub main_file: &'a Path,
    /// Directories whose headers count as the user's.
    pub user_dirs: &'a [PathBuf],
    /// nvcc's host stub file of the same pass (`.cudafe1.stub.c`): the template kernels
    /// host code launches, with their symbols.
    pub host_stub: Option<&'a str>,
    /// Without nvcc: the user's headers the source includes, by their `#include` names,
    /// read for the types they declare (a module compiled at run time carries them).
    pub headers: &'a [(String, String)],
}

impl<'a> FrontInput<'a> {
    /// An input read without nvcc.
    pub fn raw_only(display_name: &'a str, raw: &'a str) -> Self {
        FrontInput {
            display_name,
            raw,
            preprocessed: None,
            main_file: Path::new(display_name),
            user_dirs: &[],
            host_stub: None,
            headers: &[],
        }
    }
}

/// Parses and types the declarations of one source; collects every error (a kernel whose
/// signature cannot be typed is not one: it goes to [`ModuleInfo::untyped`]).
///
/// C++ kernels get their [`symbol`](crate::model::Kernel::symbol) from [`crate::verify::verify()`],
/// which matches them against the compiled images; `extern "C"` kernels already
/// have theirs.
pub fn analyze(input: &FrontInput<'_>) -> Result<ModuleInfo, Diagnostics> {
    let (info, diags) = analyze_parts(input);
    finish(input.display_name, info, diags, true)
}

/// Everything [`analyze`] does but the checks of the whole module: the model of one
/// text and the problems found in it.
pub(crate) fn analyze_parts(input: &FrontInput<'_>) -> (ModuleInfo, Diagnostics) {
    analyze_parts_for(input, None)
}

/// [`analyze_parts`]; a raw reading takes `__CUDA_ARCH__` as `cuda_arch`.
fn analyze_parts_for(input: &FrontInput<'_>, cuda_arch: Option<i64>) -> (ModuleInfo, Diagnostics) {
    let mut diags = Diagnostics::new();
    let raw_lexed = lexer::lex(input.raw);
    let (text, map, mut notes) = match input.preprocessed {
        Some(pre) => {
            let users = linemap::UserFiles {
                main_file: input.main_file,
                display_name: input.display_name,
                user_dirs: input.user_dirs,
            };
            let f = linemap::filter(pre, &users);
            (f.text, f.map, Vec::new())
        }
        None => (
            input.raw.to_string(),
            linemap::LineMap::identity(input.display_name, input.raw),
            vec![msg::note_raw()],
        ),
    };
    let lexed = if input.preprocessed.is_some() {
        lexer::lex(&text)
    } else {
        raw_lexed.clone()
    };
    for e in &lexed.errors {
        diags.push(msg::unterminated(e.what).at(map.loc(e.line, e.col)));
    }
    let tokens = if input.preprocessed.is_some() {
        lexed.tokens
    } else {
        match raw::expand_for(&text, &lexed.tokens, input.display_name, cuda_arch) {
            Ok(out) => {
                notes.extend(out.notes);
                out.tokens
            }
            Err(d) => {
                diags.append(d);
                Vec::new()
            }
        }
    };
    let (mut items, parse_diags) = parse::parse(&text, &tokens, &map);
    // nvcc compiled this text, so what the parser cannot read is the parser's limit, not
    // the user's mistake: the declarations it did read stand, and the kernels it did not
    // reach come from the images (verification), with where reading stopped.
    let stopped = match input.preprocessed {
        Some(_) => parse_diags.into_iter().next().map(|d| d.to_string()),
        None => {
            diags.append(parse_diags);
            None
        }
    };
    if let Some(stub) = input.host_stub {
        items.extend(launched::instantiation_items(stub));
    }
    let mut info = match input.preprocessed {
        // Read the library headers only when a kernel needs a type they may define.
        Some(pre) => {
            let info = analyze::build(items.clone(), Vec::new());
            if analyze::met_unknown_type(&info) {
                analyze::build(items, library_items(pre, input))
            } else {
                info
            }
        }
        None => {
            let headers = raw_header_items(input, cuda_arch);
            if !input.headers.is_empty() {
                // The headers given were read: their notes would say otherwise.
                notes.retain(|n| {
                    !input
                        .headers
                        .iter()
                        .any(|(h, _)| n.contains(&format!("\"{h}\"")))
                });
            }
            analyze::build(items, headers)
        }
    };
    if let Some(stub) = input.host_stub {
        symbols_from_stub(&mut info, stub);
    }
    info.preprocessed = input.preprocessed.is_some();
    info.notes = notes;
    info.stopped = stopped;
    docs::attach(&mut info, &raw_lexed.comments, input.display_name);
    (info, diags)
}

/// The declarations of the user's headers given to a reading without nvcc, each read as the
/// raw source is (conditionals for `cuda_arch`, object-like macros); like the library headers
/// of a build with nvcc, their types are known before the source's, and what the parser
/// cannot read there is dropped.
fn raw_header_items(input: &FrontInput<'_>, cuda_arch: Option<i64>) -> Vec<parse::Item> {
    let mut items = Vec::new();
    for (name, text) in input.headers {
        let lexed = lexer::lex(text);
        let Ok(out) = raw::expand_for(text, &lexed.tokens, name, cuda_arch) else {
            continue;
        };
        let map = linemap::LineMap::identity(name, text);
        items.extend(parse::parse(text, &out.tokens, &map).0);
    }
    items
}

/// The declarations of the toolkit and system headers in a preprocessed text (what the
/// parser cannot read there is dropped).
fn library_items(preprocessed: &str, input: &FrontInput<'_>) -> Vec<parse::Item> {
    let users = linemap::UserFiles {
        main_file: input.main_file,
        display_name: input.display_name,
        user_dirs: input.user_dirs,
    };
    let lib = linemap::library(preprocessed, &users);
    let lexed = lexer::lex(&lib.text);
    parse::parse(&lib.text, &lexed.tokens, &lib.map).0
}

/// Reads the raw source (no nvcc) once per architecture when it tests `__CUDA_ARCH__`, and
/// merges the readings as the per-target views of a real build are merged: kernels declared
/// for some targets only are part of the module, as they would be with nvcc. `archs` are
/// compute capability numbers (`90` for sm_90). The module-wide checks are the caller's.
pub(crate) fn read_raw_targets(input: &FrontInput<'_>, archs: &[u32]) -> (ModuleInfo, Diagnostics) {
    if archs.is_empty() || !input.raw.contains("__CUDA_ARCH__") {
        return analyze_parts(input);
    }
    let mut diags = Diagnostics::new();
    let mut seen: Vec<String> = Vec::new();
    let mut views = Vec::new();
    for &arch in archs {
        let (info, d) = analyze_parts_for(input, Some(i64::from(arch) * 10));
        for one in d {
            let text = one.to_string();
            if !seen.contains(&text) {
                seen.push(text);
                diags.push(one);
            }
        }
        views.push((format!("compute_{arch}"), info));
    }
    let info = merge::merge(views, &mut diags);
    (info, diags)
}

/// C++ kernels that are not templates get their symbol from the host stub when host
/// code launches them: exactly one launched kernel of that qualified name and arity.
/// (The others are matched against the images' symbols by [`crate::verify::verify()`].)
fn symbols_from_stub(info: &mut ModuleInfo, stub: &str) {
    let launched = launched::launched_all(stub);
    for k in info
        .kernels
        .iter_mut()
        .filter(|k| k.symbol.is_empty() && k.template_args.is_empty())
    {
        let shown = k.name.replace("(anonymous namespace)::", "");
        let mut found = launched.iter().filter(|l| {
            l.name.trim_start_matches("::") == shown && l.params.len() == k.params.len()
        });
        if let (Some(one), None) = (found.next(), found.next()) {
            k.symbol = one.symbol.clone();
        }
    }
}

/// The checks of a whole module (at least one kernel, unless `require_kernel` is off for
/// one file of several), and the notes of a raw reading added to the errors they explain.
pub(crate) fn finish(
    display_name: &str,
    info: ModuleInfo,
    mut diags: Diagnostics,
    require_kernel: bool,
) -> Result<ModuleInfo, Diagnostics> {
    // Kernels the host code launches are in the images even when the front end could not
    // type them: verification keeps them untyped.
    let launched = info.skipped.iter().any(|s| s.contains("launched kernel"));
    if require_kernel
        && diags.is_empty()
        && info.kernels.is_empty()
        && info.untyped.is_empty()
        && !launched
        // Where reading stopped, the kernels come from the images.
        && info.stopped.is_none()
    {
        let start = SourceLoc {
            file: display_name.to_string(),
            line: 1,
            column: 1,
        };
        let mut d = msg::no_kernels(display_name).at(Some(start));
        if let Some(left) = info.skipped.iter().find(|s| s.contains("launched kernel")) {
            d = d.note(format!(
                "host code launches kernels the front end left out: {left}"
            ));
        }
        diags.push(d);
    }
    if diags.is_empty() {
        Ok(info)
    } else if info.preprocessed {
        Err(diags)
    } else {
        Err(diags
            .into_iter()
            .map(|d| with_raw_note(d, &info.notes))
            .map(Diagnostics::from)
            .fold(Diagnostics::new(), |mut a, d| {
                a.append(d);
                a
            }))
    }
}

/// Adds the raw-reading notes to an unknown-type error: the type may come from a
/// header or macro that only nvcc would have read.
fn with_raw_note(d: Diagnostic, notes: &[String]) -> Diagnostic {
    if d.message.starts_with("unknown type") {
        notes.iter().fold(d, |d, n| d.note(n.clone()))
    } else {
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_text_is_typed_with_layouts_and_docs() {
        let src = "struct P { float x; double y; int z; };\n\
                   // Copies p.\n\
                   extern \"C\" __global__ void withstruct(P p, P* out) { *out = p; }";
        let input = FrontInput::raw_only("k.cu", src);
        assert!(input.preprocessed.is_none());
        assert_eq!(input.display_name, "k.cu");
        let info = analyze(&input).unwrap();
        let k = &info.kernels[0];
        assert_eq!(k.symbol, "withstruct");
        assert_eq!(k.doc.as_deref(), Some("Copies p."));
        let slots: Vec<_> = k
            .params
            .iter()
            .map(|p| (p.layout.offset, p.layout.size))
            .collect();
        assert_eq!(slots, [(0, 24), (24, 8)]);
        assert!(!info.preprocessed);
    }

    /// libstdc++'s `<atomic>` declares `using __atomic_base<_PTp*>::operator=;` in a struct:
    /// the operator's name ends at the `;`, and the kernel after the namespace is read.
    #[test]
    fn a_using_declaration_of_an_operator_ends_at_its_semicolon() {
        let src = "namespace n {\n\
                   struct B { B& operator=(int) { return *this; } };\n\
                   struct A : B {\n  using B::operator=;\n};\n\
                   inline void f(int* a) { }\n\
                   }\n\
                   extern \"C\" __global__ void scale(float* x, float s, int n) \
                   { int i = threadIdx.x; if (i < n) x[i] *= s; }\n";
        let info = analyze(&FrontInput::raw_only("repro.cu", src)).unwrap();
        let names: Vec<&str> = info.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["scale"]);
        assert_eq!(info.kernels[0].params.len(), 3);
        // At namespace scope too, and for the other operators.
        let src = "using ns::operator<<;\nusing ns::operator();\n\
                   extern \"C\" __global__ void k(int n) {}\n";
        let info = analyze(&FrontInput::raw_only("k.cu", src)).unwrap();
        assert_eq!(info.kernels.len(), 1);
    }

    /// nvcc compiled the text (it comes preprocessed), so a declaration the parser cannot
    /// follow is no error: what was read stands, and where reading went wrong is recorded for
    /// verification to take any kernel not read from the images. The same text read raw (no
    /// nvcc to vouch for it) is an error.
    #[test]
    fn reading_that_stops_in_compiled_text_is_no_error() {
        // A block the parser cannot close (the form libstdc++'s `using Base::operator=;`
        // once left it in): reading stops at the end of the text.
        let text = "extern \"C\" __global__ void first(int n) {}\n\
                    namespace n {\n\
                    extern \"C\" __global__ void second(int n) {}\n";
        let preprocessed = format!("# 1 \"k.cu\"\n{text}");
        let input = FrontInput {
            preprocessed: Some(&preprocessed),
            ..FrontInput::raw_only("k.cu", text)
        };
        let info = analyze(&input).unwrap();
        let names: Vec<&str> = info.kernels.iter().map(|k| k.name.as_str()).collect();
        assert!(names.contains(&"first"), "{names:?}");
        let stopped = info.stopped.expect("where reading stopped");
        assert!(stopped.starts_with("k.cu:3:"), "{stopped}");
        assert!(stopped.contains("expected `}`"), "{stopped}");
        assert!(analyze(&FrontInput::raw_only("k.cu", text)).is_err());
        // Stopped before any kernel: no "declares no kernel" error either.
        let text = "namespace n {\nextern \"C\" __global__ void k(int n) {}\n";
        let preprocessed = format!("# 1 \"k.cu\"\n{text}");
        let input = FrontInput {
            preprocessed: Some(&preprocessed),
            ..FrontInput::raw_only("k.cu", text)
        };
        assert!(analyze(&input).unwrap().stopped.is_some());
    }

    #[test]
    fn an_untypable_kernel_stays_with_why_and_no_kernel_is_an_error() {
        let info = analyze(&FrontInput::raw_only(
            "k.cu",
            "\n__global__ void k(mystery_t m);",
        ))
        .unwrap();
        assert!(info.untyped[0].why.starts_with("unknown type `mystery_t`"));
        let err = analyze(&FrontInput::raw_only("k.cu", "// nothing yet\n")).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("k.cu:1:1: error: `k.cu` declares no `__global__` kernel"),
            "{err}"
        );
    }

    #[test]
    fn raw_targets_see_kernels_behind_arch_conditions() {
        let src = "extern \"C\" __global__ void all(float* x) {}\n\
                   #if __CUDA_ARCH__ >= 900\nextern \"C\" __global__ void hopper(float* x) {}\n#endif\n";
        let (info, diags) = read_raw_targets(&FrontInput::raw_only("k.cu", src), &[80, 90]);
        assert!(diags.is_empty(), "{diags}");
        assert_eq!(info.kernels.len(), 2);
    }
}

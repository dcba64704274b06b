//! The CUDA declaration front end: preprocessing, parsing, the C type model and names.
//! What it reads is checked against the compiled images afterwards, by `verify`.
//!
//! ```text
//! device view (nvcc) ──read_preprocessed: linemap::user_lines (user's files only)
//! raw text (no nvcc) ──read_raw: raw::expand_for (conditionals, object-like macros) + notes
//!     ──lexer──▶ parse (declarations with locations) ──analyze/types──▶ ModuleInfo
//! ```
//!
//! With nvcc, the front end reads the preprocessed text (`read_preprocessed`), so macros
//! that spell `__global__`, `#if`, and typedefs from the user's headers all work; line
//! markers map every location back to the original file and line. Without nvcc
//! (`read_raw`), it reads the raw text and records that in [`ModuleInfo::notes`]. Either
//! reading ends in the checks of a whole module ([`finish`]).

pub mod demangle;
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
mod read_preprocessed;
pub(crate) mod read_raw;
pub(crate) mod tuned;
mod views;

use std::path::{Path, PathBuf};

use crate::diagnostics::{Diagnostics, front as msg};
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
    /// Instantiations the build adds for tuned kernels' variants, read as explicit
    /// instantiations after the text's own declarations.
    pub tuned: &'a [tuned::Instance],
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
            tuned: &[],
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

/// Everything [`analyze()`] does but the checks of the whole module: the model of one
/// text and the problems found in it.
pub(crate) fn analyze_parts(input: &FrontInput<'_>) -> (ModuleInfo, Diagnostics) {
    match input.preprocessed {
        Some(preprocessed) => read_preprocessed::read_view(input, preprocessed),
        None => read_raw::read_source(input, None),
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
        return Ok(info);
    }
    if info.preprocessed {
        return Err(diags);
    }
    // A raw reading's notes go with an unknown-type error: the type may come from a header
    // or macro that only nvcc would have read.
    let mut noted = Diagnostics::new();
    for d in diags {
        if d.message.starts_with("unknown type") {
            noted.push(info.notes.iter().fold(d, |d, n| d.note(n.clone())));
        } else {
            noted.push(d);
        }
    }
    Err(noted)
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
        let (info, diags) = read_raw::read_targets(&FrontInput::raw_only("k.cu", src), &[80, 90]);
        assert!(diags.is_empty(), "{diags}");
        assert_eq!(info.kernels.len(), 2);
    }
}

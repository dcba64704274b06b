//! Reading a source without nvcc: the user's headers it was given, then the source, each
//! through the raw preprocessor subset (`raw`: conditionals for one target, object-like
//! macros), parsed and typed; what could not be decided is kept as notes. A source that
//! tests `__CUDA_ARCH__` is read once per target and the readings merged, as the views of
//! a build with nvcc are.

use super::{FrontInput, analyze, docs, launched, lexer, linemap, merge, parse, raw, tuned};
use crate::diagnostics::{Diagnostics, front as msg};
use crate::model::ModuleInfo;

/// Reads the raw source once per architecture when it tests `__CUDA_ARCH__`, and merges
/// the readings as the per-target views of a real build are merged: kernels declared for
/// some targets only are part of the module, as they would be with nvcc. `archs` are
/// compute capability numbers (`90` for sm_90). The module-wide checks are the caller's.
pub(crate) fn read_targets(input: &FrontInput<'_>, archs: &[u32]) -> (ModuleInfo, Diagnostics) {
    let readings: Vec<Option<i64>> = if archs.is_empty() || !input.raw.contains("__CUDA_ARCH__") {
        vec![None]
    } else {
        archs
            .iter()
            .map(|&arch| Some(i64::from(arch) * 10))
            .collect()
    };
    let mut diags = Diagnostics::new();
    let mut seen: Vec<String> = Vec::new();
    let mut views = Vec::new();
    for cuda_arch in readings {
        let (info, d) = read_source(input, cuda_arch);
        let Some(arch) = cuda_arch else {
            return (info, d);
        };
        for one in d {
            let text = one.to_string();
            if !seen.contains(&text) {
                seen.push(text);
                diags.push(one);
            }
        }
        views.push((format!("compute_{}", arch / 10), info));
    }
    let info = merge::merge(views, &mut diags);
    (info, diags)
}

/// The model of the raw source read for `cuda_arch` (`__CUDA_ARCH__`, undefined when
/// `None`), and the problems found in it.
pub(super) fn read_source(
    input: &FrontInput<'_>,
    cuda_arch: Option<i64>,
) -> (ModuleInfo, Diagnostics) {
    // The user's headers are the user's code, as their lines are in a build with nvcc:
    // their structs, enumerations and kernels belong to the module, declared before the
    // source's. What cannot be read there is dropped, as nvcc's views stop reading without
    // an error. One reading per text: the headers', then the source's (the last).
    let mut items: Vec<parse::Item> = Vec::new();
    for (name, text) in input.headers {
        let header = read_text((name, text), cuda_arch);
        if header.expanded {
            items.extend(header.items);
        }
    }
    let source = read_text((input.display_name, input.raw), cuda_arch);
    items.extend(source.items);
    let mut notes = vec![msg::note_raw()];
    notes.extend(source.notes);
    if !input.headers.is_empty() {
        // The headers given were read: their notes would say otherwise.
        notes.retain(|n| {
            !input
                .headers
                .iter()
                .any(|(h, _)| n.contains(&format!("\"{h}\"")))
        });
    }
    let tuned = tuned::instantiation_items(&items, input.tuned);
    items.extend(tuned);
    if let Some(stub) = input.host_stub {
        items.extend(launched::instantiation_items(stub));
    }
    let mut info = analyze::build(items, Vec::new());
    if let Some(stub) = input.host_stub {
        launched::symbols_from_stub(&mut info, stub);
    }
    info.preprocessed = false;
    info.notes = notes;
    docs::attach(&mut info, &source.comments, input.display_name);
    (info, source.diags)
}

/// The declarations of the raw source and its user's headers (`input.headers`), read for
/// `cuda_arch` (`__CUDA_ARCH__`, undefined when `None`), without the analysis: what the
/// build reads tuned kernels' templates from before nvcc runs.
pub(crate) fn declarations(input: &FrontInput<'_>, cuda_arch: Option<i64>) -> Vec<parse::Item> {
    let mut items: Vec<parse::Item> = Vec::new();
    for (name, text) in input.headers {
        let header = read_text((name, text), cuda_arch);
        if header.expanded {
            items.extend(header.items);
        }
    }
    items.extend(read_text((input.display_name, input.raw), cuda_arch).items);
    items
}

/// One text read raw.
#[derive(Default)]
struct Text {
    items: Vec<parse::Item>,
    notes: Vec<String>,
    diags: Diagnostics,
    comments: Vec<lexer::Comment>,
    /// The raw preprocessor finished (an error there leaves no tokens to parse).
    expanded: bool,
}

/// Lexes a text (its name and its text), runs the raw preprocessor for `cuda_arch` and parses
/// what it leaves.
fn read_text((name, text): (&str, &str), cuda_arch: Option<i64>) -> Text {
    let mut diags = Diagnostics::new();
    let map = linemap::LineMap::identity(name, text);
    let lexed = lexer::lex(text);
    for e in &lexed.errors {
        diags.push(msg::unterminated(e.what).at(map.loc(e.line, e.col)));
    }
    let (tokens, notes, expanded) = match raw::expand_for(text, &lexed.tokens, name, cuda_arch) {
        Ok(out) => (out.tokens, out.notes, true),
        Err(d) => {
            diags.append(d);
            (Vec::new(), Vec::new(), false)
        }
    };
    let (items, parse_diags) = parse::parse(text, &tokens, &map);
    diags.append(parse_diags);
    Text {
        items,
        notes,
        diags,
        comments: lexed.comments,
        expanded,
    }
}

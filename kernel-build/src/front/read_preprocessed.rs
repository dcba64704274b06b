//! Reading the text nvcc preprocessed for one target (a device view): the user's lines
//! picked out by their line markers, parsed, and typed with the library headers' types when
//! a kernel needs one. nvcc compiled this text, so what the parser cannot read is the
//! parser's limit, not the user's mistake: reading stops there without an error.

use super::{FrontInput, analyze, docs, launched, lexer, linemap, parse, tuned};
use crate::diagnostics::{Diagnostics, front as msg};
use crate::model::ModuleInfo;

/// The model of one preprocessed text and the problems found in it.
pub(super) fn read_view(input: &FrontInput<'_>, preprocessed: &str) -> (ModuleInfo, Diagnostics) {
    let mut diags = Diagnostics::new();
    let users = linemap::UserFiles {
        main_file: input.main_file,
        display_name: input.display_name,
        user_dirs: input.user_dirs,
    };
    let filtered = linemap::user_lines(preprocessed, &users);
    let (text, map) = (filtered.text, filtered.map);
    let lexed = lexer::lex(&text);
    for e in &lexed.errors {
        diags.push(msg::unterminated(e.what).at(map.loc(e.line, e.col)));
    }
    let (mut items, parse_diags) = parse::parse(&text, &lexed.tokens, &map);
    // The declarations the parser did read stand, and the kernels it did not reach come
    // from the images (verification), with where reading stopped.
    let stopped = parse_diags.into_iter().next().map(|d| d.to_string());
    let tuned = tuned::instantiation_items(&items, input.tuned);
    items.extend(tuned);
    if let Some(stub) = input.host_stub {
        items.extend(launched::instantiation_items(stub));
    }
    // Read the library headers only when a kernel needs a type they may define.
    let info = analyze::build(items.clone(), Vec::new());
    let mut info = if analyze::met_unknown_type(&info) {
        let library = linemap::library(preprocessed, &users);
        let lexed = lexer::lex(&library.text);
        let library_items = parse::parse(&library.text, &lexed.tokens, &library.map).0;
        analyze::build(items, library_items)
    } else {
        info
    };
    if let Some(stub) = input.host_stub {
        launched::symbols_from_stub(&mut info, stub);
    }
    info.preprocessed = true;
    info.stopped = stopped;
    docs::attach(
        &mut info,
        &lexer::lex(input.raw).comments,
        input.display_name,
    );
    (info, diags)
}

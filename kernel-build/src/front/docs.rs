//! Kernel docs: the comment block just above a kernel in the user's main file.

use super::lexer::Comment;
use crate::model::ModuleInfo;

/// Sets [`Kernel::doc`](crate::model::Kernel::doc) from the comments that end on the
/// line above each kernel of `file` (a run of adjacent comments counts as one block).
pub(super) fn attach(info: &mut ModuleInfo, comments: &[Comment], file: &str) {
    for k in &mut info.kernels {
        let Some(loc) = k.loc.as_ref().filter(|l| l.file == file) else {
            continue;
        };
        let mut line = loc.line;
        let mut block: Vec<&Comment> = Vec::new();
        while let Some(c) = comments.iter().rev().find(|c| c.end_line + 1 == line) {
            block.push(c);
            line = c.line;
        }
        if block.is_empty() {
            continue;
        }
        let text: Vec<String> = block
            .iter()
            .rev()
            .flat_map(|c| c.text.lines())
            .map(|l| {
                l.trim()
                    .trim_start_matches(['/', '*', '!'])
                    .trim()
                    .to_string()
            })
            .filter(|l| !l.is_empty())
            .collect();
        if !text.is_empty() {
            k.doc = Some(text.join("\n"));
        }
    }
}

//! A first look at a declaration's head (up to `;`, `{` or `=`), deciding what it
//! is before it is read: a kernel, a module global, a typedef or something else.

use super::cursor::Parser;
use super::keywords::ATTRIBUTE_CALLS;

/// What the head of a declaration (up to `;`, `{` or `=`) contains.
#[derive(Default)]
pub(super) struct Head {
    /// `__global__`, in either spelling.
    pub(super) global: bool,
    /// `__constant__` or `__device__`: a module global, unless `local_space` is set.
    pub(super) space_var: bool,
    /// `__shared__` or `__managed__`.
    pub(super) local_space: bool,
    /// `typedef`.
    pub(super) typedef: bool,
    /// A parenthesised group that is not an attribute's: a function.
    pub(super) function: bool,
    /// The head starts with `struct`, `class`, `union` or `enum`.
    pub(super) aggregate_first: bool,
}
/// Words besides the attributes ([`ATTRIBUTE_CALLS`]) followed by a parenthesised group that
/// is not a parameter list.
const OPERATOR_CALLS: &[&str] = &["decltype", "sizeof", "noexcept", "throw"];
impl Parser<'_> {
    /// Looks at the head of the declaration at the cursor without consuming it.
    pub(super) fn head(&self) -> Head {
        let mut h = Head::default();
        let mut i = self.pos;
        let mut first = true;
        while let Some(t) = self.toks.get(i) {
            let s = t.text(self.src);
            // `operator+=(...)`, `operator==(...)`: an operator function, whatever follows.
            if s == "operator" {
                h.function = true;
                break;
            }
            if matches!(s, ";" | "{" | "=" | "}") {
                break;
            }
            if first {
                h.aggregate_first = matches!(s, "struct" | "class" | "union" | "enum");
                first = false;
            }
            match s {
                "__global__" => h.global = true,
                "__constant__" | "__device__" => h.space_var = true,
                "__shared__" | "__managed__" => h.local_space = true,
                "typedef" => h.typedef = true,
                "(" => {
                    let attr = i > 0 && {
                        let word = self.toks[i - 1].text(self.src);
                        ATTRIBUTE_CALLS.contains(&word) || OPERATOR_CALLS.contains(&word)
                    };
                    let end = self.group_end(i);
                    for t in &self.toks[i..end] {
                        match t.text(self.src) {
                            "global" | "__global__" if attr => h.global = true,
                            "constant" | "device" if attr => h.space_var = true,
                            "shared" | "managed" if attr => h.local_space = true,
                            _ => {}
                        }
                    }
                    h.function |= !attr;
                    i = end;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        h
    }

    /// Index one past the bracket group opening at `open`.
    pub(super) fn group_end(&self, open: usize) -> usize {
        let mut depth = 0usize;
        for (j, t) in self.toks.iter().enumerate().skip(open) {
            match t.text(self.src) {
                "(" | "[" => depth += 1,
                ")" | "]" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return j + 1;
                    }
                }
                ";" | "{" | "}" => return j,
                _ => {}
            }
        }
        self.toks.len()
    }
}

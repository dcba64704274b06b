//! What each kind of kernel parameter takes, written once: the list is both the note of a
//! wrong argument's error (`arg_bounds`) and the stub's `# Arguments` docs (`docs`), so
//! the two cannot say different things.

/// One thing a pointer parameter takes.
enum Take {
    /// A borrow of a buffer type (`&TrackedBuffer<E>`), the runtime's re-export `item`.
    Borrow {
        spelled: &'static str,
        item: &'static str,
    },
    /// A wrapper of the runtime's (`In(&[E])`), named with the runtime's path in messages.
    Wrapper {
        spelled: &'static str,
        item: &'static str,
    },
    /// Words, not a type.
    Words(&'static str),
}

/// The buffer types the runtime re-exports from cudarc. Their pages are cudarc's, which
/// rustdoc links only where the dependencies' pages are made (not under `cargo doc
/// --no-deps`, where the link would be left as the dead text `gpu::CudaSlice`), so the docs
/// name them without a link; the runtime's own types link to its pages, local or published.
const FROM_CUDARC: [&str; 4] = ["CudaSlice", "CudaView", "CudaViewMut", "UnifiedSlice"];

/// What a `const T*` parameter takes (`E` stands for the element type).
const READ: &[Take] = &[
    Take::Borrow {
        spelled: "&TrackedBuffer<E>",
        item: "TrackedBuffer",
    },
    Take::Borrow {
        spelled: "&TrackedView<E>",
        item: "TrackedView",
    },
    Take::Borrow {
        spelled: "&CudaSlice<E>",
        item: "CudaSlice",
    },
    Take::Borrow {
        spelled: "&CudaView<E>",
        item: "CudaView",
    },
    Take::Borrow {
        spelled: "&UnifiedSlice<E>",
        item: "UnifiedSlice",
    },
    Take::Words("a mutable form of any"),
    Take::Wrapper {
        spelled: "In(&[E])",
        item: "In",
    },
    Take::Wrapper {
        spelled: "InOut(&mut [E])",
        item: "InOut",
    },
    Take::Wrapper {
        spelled: "Null",
        item: "Null",
    },
];

/// What a `T*` parameter takes.
const WRITE: &[Take] = &[
    Take::Borrow {
        spelled: "&mut TrackedBuffer<E>",
        item: "TrackedBuffer",
    },
    Take::Borrow {
        spelled: "&mut TrackedViewMut<E>",
        item: "TrackedViewMut",
    },
    Take::Borrow {
        spelled: "&mut CudaSlice<E>",
        item: "CudaSlice",
    },
    Take::Borrow {
        spelled: "&mut CudaViewMut<E>",
        item: "CudaViewMut",
    },
    Take::Borrow {
        spelled: "&mut UnifiedSlice<E>",
        item: "UnifiedSlice",
    },
    Take::Wrapper {
        spelled: "Out(&mut [E])",
        item: "Out",
    },
    Take::Wrapper {
        spelled: "InOut(&mut [E])",
        item: "InOut",
    },
    Take::Wrapper {
        spelled: "Null",
        item: "Null",
    },
];

fn list(mutable: bool) -> &'static [Take] {
    if mutable { WRITE } else { READ }
}

/// `spelled` with its element type `E` (in `<E>` or `[E]`) written as `elem`.
fn with_elem(spelled: &str, elem: &str) -> String {
    spelled
        .replace("<E>", &format!("<{elem}>"))
        .replace("[E]", &format!("[{elem}]"))
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: Vec<String>) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// The note of a wrong argument's error: every accepted type, the element written as
/// `{__E}` (the `on_unimplemented` parameter) and wrappers named with `krate`.
///
/// ```text
/// pass `&TrackedBuffer<{__E}>`, ..., `cuda_kernel_runtime::In(&[{__E}])`, ... or `cuda_kernel_runtime::Null`
/// ```
pub(crate) fn error_note(mutable: bool, krate: &str) -> String {
    let items = list(mutable)
        .iter()
        .map(|t| match t {
            Take::Borrow { spelled, .. } => format!("`{}`", with_elem(spelled, "{__E}")),
            Take::Wrapper { spelled, .. } => format!("`{krate}::{}`", with_elem(spelled, "{__E}")),
            Take::Words(w) => (*w).to_owned(),
        })
        .collect();
    format!("pass {}", or_list(items))
}

/// The docs' list of what a pointer parameter over `elem` takes, each type linked to the
/// runtime's item through `krate` (its path as the crate names it), one per line (each
/// line but the first indented as a list item's continuation).
pub(crate) fn doc_list(mutable: bool, elem: &str, krate: &str) -> String {
    let items = list(mutable)
        .iter()
        .map(|t| match t {
            Take::Borrow { spelled, item } if FROM_CUDARC.contains(item) => {
                format!("`{}`", with_elem(spelled, elem))
            }
            Take::Borrow { spelled, item } | Take::Wrapper { spelled, item } => {
                format!("[`{}`]({krate}::{item})", with_elem(spelled, elem))
            }
            Take::Words(w) => (*w).to_owned(),
        })
        .collect();
    or_list(items)
        .replace(", ", ",\n  ")
        .replace(" or [", "\n  or [")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_note_lists_every_buffer_and_wrapper() {
        assert_eq!(
            error_note(true, "rt"),
            "pass `&mut TrackedBuffer<{__E}>`, `&mut TrackedViewMut<{__E}>`, `&mut CudaSlice<{__E}>`, \
             `&mut CudaViewMut<{__E}>`, `&mut UnifiedSlice<{__E}>`, `rt::Out(&mut [{__E}])`, \
             `rt::InOut(&mut [{__E}])` or `rt::Null`"
        );
        assert!(error_note(false, "rt").contains("a mutable form of any, `rt::In(&[{__E}])`"));
    }

    #[test]
    fn the_docs_link_each_type_to_the_runtime() {
        let d = doc_list(false, "f32", "kr");
        assert!(
            d.starts_with("[`&TrackedBuffer<f32>`](kr::TrackedBuffer),\n  [`&TrackedView<f32>`]"),
            "{d}"
        );
        assert!(d.lines().all(|l| l.len() < 100), "{d}");
        assert!(d.contains("[`In(&[f32])`](kr::In)"), "{d}");
        assert!(d.ends_with(" or [`Null`](kr::Null)"), "{d}");
        let w = doc_list(true, "Particle", "kr");
        // cudarc's buffers are named, not linked: their pages are cudarc's.
        assert!(w.contains("`&mut CudaViewMut<Particle>`,"), "{w}");
        assert!(
            !w.contains("kr::CudaViewMut") && !w.contains("kr::CudaSlice"),
            "{w}"
        );
        assert!(w.contains("[`Out(&mut [Particle])`](kr::Out)"), "{w}");
    }
}

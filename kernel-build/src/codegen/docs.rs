//! Rustdoc of generated stubs: the CUDA comment, the declaration, registers, safety.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::takes;
use super::types::{ParamKind, Spelled};
use crate::model::rust::{Member, Planned};
use crate::model::{CType, Kernel, UntypedKernel};

/// What an unsafe stub's caller must uphold; the whole text, and the errors every stub
/// returns, are in the module's docs.
const SAFETY: &str = "\
# Safety
The module's launch contract: in bounds, no race, no fault.";

/// The launch contract, once per module (each unsafe stub points at it).
pub(crate) const CONTRACT: &str = "\
# Launch contract

A kernel can read and write any device memory its arguments lead it to. The caller of an
`unsafe` launch method must ensure that, for that launch configuration and those scalar
arguments, the kernel stays inside the buffers it is given, that it does not write memory
other work reads or writes at the same time, and that it ends without a device fault (a
fault poisons the whole context). A method is safe only where the crate vouched for its
kernel (`safe fn` in an `unsafe extern` block, or `Build::safe_kernel`).

Launch methods return an error when the launch configuration is invalid for the kernel,
when preparing or finishing an argument fails (a copy for `In`/`Out`/`InOut`), or when the
driver rejects the launch.";

/// The module docs' list of the kernels without a typed stub, each with where and why.
pub(crate) fn untyped_section(untyped: &[UntypedKernel]) -> TokenStream {
    if untyped.is_empty() {
        return quote!();
    }
    let mut text = String::from(
        "\n# Kernels without a typed stub\n\nIn the module, launched by name: \
         `Module::by_name(name)` gives the `Kernel`, whose `launch` takes arguments of exactly \
         the sizes `METADATA` lists.\n",
    );
    for k in untyped {
        let at = k
            .loc
            .as_ref()
            .map(|l| format!(" at `{l}`"))
            .unwrap_or_default();
        text.push_str(&format!(
            "\n- `{}`{at}: {}",
            k.name.replace('`', "'"),
            escape_brackets(&k.why)
        ));
    }
    let lines = text.lines().map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
}

/// Rustdoc of every launch method, in the plan's order; `safe`: whether a method's kernel
/// was vouched for.
pub(crate) fn stub_docs(
    planned: &[Planned<'_>],
    spelled: &[Spelled],
    targets: &[String],
    safe: impl Fn(&Ident) -> bool,
    rt: &TokenStream,
) -> Vec<TokenStream> {
    planned
        .iter()
        .zip(spelled)
        .map(|(planned, spelled)| match planned {
            Planned::Single { name, kernel, .. } => {
                kernel_doc(kernel, spelled, targets, safe(name), rt)
            }
            Planned::Family { name, members, .. } => {
                family_doc(name, members, spelled, targets, safe(name), rt)
            }
        })
        .collect()
}

/// Rustdoc of a one-kernel stub.
fn kernel_doc(
    kernel: &Kernel,
    spelled: &Spelled,
    targets: &[String],
    safe: bool,
    rt: &TokenStream,
) -> TokenStream {
    let mut text = user_doc(kernel);
    text.push_str(&declaration(kernel));
    text.push_str(&registers(kernel));
    text.push_str(".\n\n");
    text.push_str(&availability(kernel, targets));
    text.push_str(&arguments(kernel, spelled, rt, None));
    finish(text, safe)
}

/// The `# Arguments` section: for each parameter its CUDA declaration, whether the kernel
/// reads or may write through it, and every Rust type it takes, linked (the same list a
/// wrong argument's error gives). `family`: the method of a template family, whose
/// arguments are described for its first instantiation.
fn arguments(kernel: &Kernel, spelled: &Spelled, rt: &TokenStream, family: Option<&str>) -> String {
    let krate = rt.to_string().replace(' ', "");
    let krate = krate.trim_start_matches("::");
    let shown = |tokens: &TokenStream| {
        let text = tokens.to_string().replace(' ', "");
        let text = text.strip_prefix("::").unwrap_or(&text).to_owned();
        text.strip_prefix(&format!("{krate}::"))
            .map_or(text.clone(), str::to_owned)
    };
    let mut out = String::from("# Arguments\n\n");
    if let Some(instance) = family {
        out.push_str(&format!(
            "As `{instance}` takes them; each instantiation takes its own element types.\n\n"
        ));
    }
    out.push_str(&format!(
        "- `cfg`: the launch configuration, a [`Launch`]({krate}::Launch) (grid, block, \
         dynamic shared memory, attributes).\n"
    ));
    for (p, sp) in kernel.params.iter().zip(&spelled.params) {
        let name = sp.ident.to_string();
        let name = name.trim_start_matches("r#");
        let written = match &p.name {
            Some(n) if !n.is_empty() => format!("{} {n}", p.written),
            _ => p.written.clone(),
        };
        let what = match &sp.described {
            ParamKind::ConstPtr(elem) => format!(
                "device memory holding `{e}`, which the kernel reads only. Pass\n  {}.",
                takes::doc_list(false, &shown(elem), krate),
                e = shown(elem)
            ),
            ParamKind::MutPtr(elem) => format!(
                "device memory holding `{e}`, which the kernel may write. Pass\n  {}.",
                takes::doc_list(true, &shown(elem), krate),
                e = shown(elem)
            ),
            ParamKind::Value(ty) => {
                let ty = shown(ty);
                let linked = match &p.ty {
                    CType::Struct(_) => format!("[`{ty}`]"),
                    _ => format!("`{ty}`"),
                };
                format!("{linked}, passed by value (the kernel gets a copy).")
            }
            ParamKind::Object {
                object, ordered, ..
            } => {
                let text = shown(object).replace("impl::core::marker::Sized", "_");
                let item = text.split('<').next().unwrap_or(&text).to_owned();
                let how = if *ordered {
                    "the kernel gets it by value, and the launch orders the memory it describes \
                     across streams as it orders a buffer's"
                } else {
                    "the kernel gets its handle"
                };
                format!("a [`&{text}`]({krate}::{item}); {how}.")
            }
        };
        out.push_str(&format!(
            "- `{name}` (CUDA `{}`): {what}\n",
            escape_brackets(&written)
        ));
    }
    out.push('\n');
    out
}

/// Where a kernel compiled for some targets only can run.
fn availability(kernel: &Kernel, targets: &[String]) -> String {
    let Some(on) = kernel.on_some_targets(targets) else {
        return String::new();
    };
    let missing: Vec<&str> = targets
        .iter()
        .filter(|t| !on.contains(t))
        .map(String::as_str)
        .collect();
    format!(
        "Compiled for {} only (not {}). On a GPU whose image lacks it, the call returns \
         `Error::KernelNotInImage` before launching; `Module::has_kernel` tells ahead.\n\n",
        on.join(", "),
        missing.join(", ")
    )
}

/// Rustdoc of a generic stub over a template family.
fn family_doc(
    name: &Ident,
    members: &[Member<'_>],
    spelled: &Spelled,
    targets: &[String],
    safe: bool,
    rt: &TokenStream,
) -> TokenStream {
    let mut text = user_doc(members[0].kernel);
    let template = qualified_base(members[0].kernel);
    text.push_str(&format!(
        "Instantiations of CUDA template `{template}` (select one with `{name}::<T>`):\n\n"
    ));
    text.push_str("| Rust | CUDA |\n|---|---|\n");
    let keys: Vec<String> = spelled
        .members
        .iter()
        .map(|m| {
            let key = m.key.to_string().replace(' ', "");
            key.rsplit("::").next().unwrap_or(&key).to_owned()
        })
        .collect();
    for (m, key) in members.iter().zip(&keys) {
        text.push_str(&format!("| `{name}::<{key}>` | `{}` |\n", m.kernel.name));
    }
    text.push('\n');
    text.push_str(&arguments(
        members[0].kernel,
        spelled,
        rt,
        Some(&format!("{name}::<{}>", keys[0])),
    ));
    for m in members {
        text.push_str(&declaration(m.kernel));
        text.push_str(&registers(m.kernel));
        text.push_str(".\n\n");
    }
    for m in members {
        let note = availability(m.kernel, targets);
        if !note.is_empty() {
            text.push_str(&format!("`{}`: {note}", m.kernel.name));
        }
    }
    finish(text, safe)
}

/// A template's name without its arguments, with its namespaces (`ops::axpy`).
pub(crate) fn qualified_base(kernel: &Kernel) -> String {
    let mut parts = kernel.namespace.clone();
    parts.push(kernel.base_name.clone());
    parts.join("::")
}

fn finish(mut text: String, safe: bool) -> TokenStream {
    if !safe {
        text.push_str(SAFETY);
    }
    let lines = text.trim_end().lines().map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
}

/// The comment above the kernel, made safe for rustdoc: indentation removed (so
/// nothing reads as an indented code block), unlabelled fences marked `text`
/// (so nothing runs as a doctest), and brackets outside code escaped (so `y[i]` is
/// not an intra-doc link).
fn user_doc(kernel: &Kernel) -> String {
    let Some(doc) = kernel.doc.as_deref() else {
        return String::new();
    };
    let mut out = String::new();
    let mut in_fence = false;
    for line in doc.lines() {
        let line = line.trim_start();
        if let Some(lang) = line.strip_prefix("```") {
            if !in_fence && lang.trim().is_empty() {
                out.push_str("```text\n");
            } else {
                out.push_str(line);
                out.push('\n');
            }
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            out.push_str(line);
        } else {
            out.push_str(&escape_brackets(line));
        }
        out.push('\n');
    }
    if in_fence {
        out.push_str("```\n");
    }
    out.push('\n');
    out
}

/// `[` and `]` outside inline code spans, escaped for markdown.
fn escape_brackets(line: &str) -> String {
    line.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 0 {
                part.replace('[', "\\[").replace(']', "\\]")
            } else {
                part.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// The CUDA declaration and where it is, without the closing full stop; an instantiation's
/// parameters with the template's arguments in place (`float a`, not `T a`).
fn declaration(kernel: &Kernel) -> String {
    let params: Vec<String> = kernel
        .params
        .iter()
        .map(|p| {
            let ty = if kernel.template_args.is_empty() {
                p.written.clone()
            } else {
                crate::model::spelling::c_spelling(&p.ty)
            };
            match &p.name {
                Some(n) => format!("{ty} {n}"),
                None => ty,
            }
        })
        .collect();
    let mut text = format!(
        "CUDA: `__global__ void {}({})`",
        kernel.name,
        params.join(", ")
    );
    if let Some(loc) = &kernel.loc {
        text.push_str(&format!(" at `{loc}`"));
    }
    // Without nvcc a C++ kernel's symbol is not known (the images give it).
    if !kernel.symbol.is_empty() {
        text.push_str(&format!(", symbol `{}`", kernel.symbol));
    }
    text
}

/// Registers per thread in each SASS image, when known (`; 26 registers per thread on
/// sm_90, 32 on sm_80`).
fn registers(kernel: &Kernel) -> String {
    let counts: Vec<String> = kernel
        .images
        .iter()
        .filter_map(|i| i.registers.map(|r| format!("{r} on {}", i.target)))
        .collect();
    match counts.split_first() {
        None => String::new(),
        Some((first, rest)) => {
            let first = first.replacen(" on ", " registers per thread on ", 1);
            let mut text = format!("; {first}");
            for c in rest {
                text.push_str(&format!(", {c}"));
            }
            text
        }
    }
}

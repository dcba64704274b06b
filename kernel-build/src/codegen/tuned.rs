//! The entry point of each kernel tuned over declared variants: `<kernel>_tuned(key,
//! outputs, args...)` on `Module`, taking the kernel's own typed arguments, with its
//! `static` tuner and the variants' description, and the `TunedSpec`s of `METADATA`.
//!
//! The method spells its parameters as the stub of its first variant does (every variant
//! takes the same types, which the build checked), binds its value arguments first (the
//! launch rules read the integers among them), and hands the runtime's
//! `__private::tune::launch` the arguments as one tuple, launched in place as many times as
//! timing takes.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::types::{ParamKind, Spelled};
use crate::model::built::BuiltModule;
use crate::model::rust::{Planned, rust_ident};
use crate::model::{Kernel, RuleOp, TunedKernel, TunedRule};

/// A tuned kernel whose entry point is generated: the kernel and the variants' indices.
pub(crate) struct Entry<'a> {
    pub tuned: &'a TunedKernel,
    /// Per variant with a kernel: its index among the variants, and the kernel's index.
    pub present: Vec<(usize, usize)>,
    /// The first variant's kernel named as the entry point, which its argument bounds'
    /// messages name.
    pub kernel: Kernel,
}

/// The tuned kernels that get an entry point (at least one variant has its kernel in the
/// module).
pub(crate) fn entries(parts: &BuiltModule) -> Vec<Entry<'_>> {
    parts
        .tuned
        .iter()
        .filter_map(|t| {
            let present: Vec<(usize, usize)> = t
                .variants
                .iter()
                .enumerate()
                .filter_map(|(v, variant)| {
                    let name = variant.kernel.as_ref()?;
                    let index = parts.info.kernels.iter().position(|k| k.name == *name)?;
                    Some((v, index))
                })
                .collect();
            let &(_, first) = present.first()?;
            let mut kernel = parts.info.kernels[first].clone();
            kernel.name = format!("{}_tuned", t.method);
            Some(Entry {
                tuned: t,
                present,
                kernel,
            })
        })
        .collect()
}

/// Each entry point planned as a launch method, spelled and bounded like a stub of its
/// first variant.
pub(crate) fn planned<'a>(entries: &'a [Entry<'_>]) -> Vec<Planned<'a>> {
    entries
        .iter()
        .map(|e| Planned::Single {
            name: rust_ident(&e.kernel.name),
            index: e.present[0].1,
            kernel: &e.kernel,
        })
        .collect()
}

/// The entry points, each spelled and bounded as `spelled` and `bounds` say.
pub(crate) fn entry_points(
    entries: &[Entry<'_>],
    planned: &[Planned<'_>],
    spelled: &[Spelled],
    bounds: &[Vec<TokenStream>],
    safe: &dyn Fn(&str) -> bool,
    rt: &TokenStream,
) -> TokenStream {
    let points = entries
        .iter()
        .zip(planned)
        .zip(spelled.iter().zip(bounds))
        .map(|((entry, planned), (spelled, bounds))| {
            let safe = safe(&entry.tuned.method);
            entry_point(entry, planned.name(), spelled, bounds, safe, rt)
        });
    quote!(#(#points)*)
}

fn entry_point(
    entry: &Entry<'_>,
    name: &Ident,
    spelled: &Spelled,
    bounds: &[TokenStream],
    safe: bool,
    rt: &TokenStream,
) -> TokenStream {
    let t = entry.tuned;
    let args = spelled.params.iter().zip(bounds).map(|(p, bound)| {
        let id = &p.ident;
        match &p.kind {
            ParamKind::Value(_) | ParamKind::ConstPtr(_) | ParamKind::MutPtr(_) => {
                quote!(#id: impl #bound)
            }
            ParamKind::Object { object, .. } => quote!(#id: &#object),
        }
    });
    // Value arguments are bound first: the rules read the integers among them.
    let binds = spelled.params.iter().filter_map(|p| match &p.kind {
        ParamKind::Value(_) => {
            let id = &p.ident;
            Some(quote!(let #id = #id.into_exact();))
        }
        _ => None,
    });
    let values = spelled.params.iter().map(|p| {
        let id = &p.ident;
        match &p.kind {
            ParamKind::Value(_) if p.bare => quote!(#id),
            ParamKind::Value(_) => quote!(#rt::ByValue(#id)),
            ParamKind::Object { ordered: true, .. } => quote!(#id),
            ParamKind::Object { .. } => quote!(#rt::ByValue(#id.handle())),
            ParamKind::ConstPtr(_) | ParamKind::MutPtr(_) => quote!(#id),
        }
    });
    let ints = t.ints.iter().map(|n| {
        let id = rust_ident(n);
        quote!(#rt::__private::tune::int(#id))
    });
    let names = entry.present.iter().map(|&(v, _)| &t.variants[v].name);
    let kernels = entry.present.iter().map(|&(_, k)| k);
    let variant_values = entry.present.iter().map(|&(v, _)| {
        let ints = t.variants[v]
            .ints
            .iter()
            .map(|i| Literal::i64_unsuffixed(*i));
        quote!(&[#(#ints),*])
    });
    let param_names = spelled.params.iter().map(|p| {
        let n = p.ident.to_string();
        n.trim_start_matches("r#").to_owned()
    });
    let written = spelled
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p.described, ParamKind::MutPtr(_)))
        .map(|(i, _)| i);
    let grid = dims(&t.grid, rt);
    let block = dims(&t.block, rt);
    let shared = t
        .shared
        .as_ref()
        .map_or_else(|| quote!(&[]), |r| program(&r.ops, rt));
    let texts = [
        texts(&t.grid),
        texts(&t.block),
        t.shared
            .as_ref()
            .map(|r| r.text.clone())
            .unwrap_or_default(),
    ];
    let tuner = tuner_ident(t);
    let doc = docs(entry, safe);
    let unsafety = if safe { quote!() } else { quote!(unsafe) };
    quote! {
        #doc
        pub #unsafety fn #name(
            &self,
            key: impl ::core::convert::Into<#rt::tune::Key>,
            outputs: impl #rt::tune::Protection,
            #(#args),*
        ) -> ::core::result::Result<(), #rt::Error> {
            static DECLARED: #rt::__private::tune::Declared = #rt::__private::tune::Declared {
                names: &[#(#names),*],
                kernels: &[#(#kernels),*],
                values: &[#(#variant_values),*],
                shape: #rt::__private::tune::Shape {
                    grid: #grid,
                    block: #block,
                    shared: #shared,
                    text: [#(#texts),*],
                },
                params: &[#(#param_names),*],
                written: &[#(#written),*],
            };
            #(#binds)*
            let ints = [#(#ints),*];
            // The arguments follow the verified layout every variant shares; the caller
            // vouches for the kernels (`# Safety`), or the crate did where it declared them.
            unsafe {
                #rt::__private::tune::launch(
                    &tuners::#tuner,
                    &self.inner,
                    &DECLARED,
                    key.into(),
                    &outputs,
                    &ints,
                    &mut (#(#values,)*),
                )
            }
        }
    }
}

/// The `static` tuner of a tuned kernel: its method's name in capitals.
fn tuner_ident(t: &TunedKernel) -> Ident {
    format_ident!("{}", t.method.trim_start_matches("r#").to_uppercase())
}

/// The `tuners` module: one `static` tuner per tuned kernel, what its entry point settles
/// with, whose choices, notes and counts a program reads and to which it can give a table.
pub(crate) fn tuners(entries: &[Entry<'_>], rt: &TokenStream) -> TokenStream {
    if entries.is_empty() {
        return quote!();
    }
    let each = entries.iter().map(|e| {
        let t = e.tuned;
        let ident = tuner_ident(t);
        let name = &t.name;
        let doc = format!(
            " The tuner of `{}` (CUDA kernel `{}`): its choices, notes and number of timing runs; \
             give it an embedded table with `use_table`.",
            e.kernel.name, t.kernel
        );
        quote! {
            #[doc = #doc]
            pub static #ident: #rt::tune::Tuner<#rt::tune::Key> =
                #rt::tune::Tuner::new(#name).module(&super::METADATA);
        }
    });
    quote! {
        /// The tuners of this module's tuned kernels, one `static` each, named after the
        /// kernel's method in capitals.
        pub mod tuners {
            #(#each)*
        }
    }
}

/// `&[&[ops], ...]` of one to three dimensions.
fn dims(rules: &[TunedRule], rt: &TokenStream) -> TokenStream {
    let each = rules.iter().map(|r| program(&r.ops, rt));
    quote!(&[#(#each),*])
}

/// A rule's dimensions as the declaration wrote them, `(a, b)` for several.
fn texts(rules: &[TunedRule]) -> String {
    match rules {
        [one] => one.text.clone(),
        many => format!(
            "({})",
            many.iter()
                .map(|r| r.text.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A program as `&[RuleOp::..., ...]`.
fn program(ops: &[RuleOp], rt: &TokenStream) -> TokenStream {
    let op = quote!(#rt::__private::tune::RuleOp);
    let each = ops.iter().map(|o| match o {
        RuleOp::Const(v) if *v < 0 => {
            let magnitude = Literal::i128_unsuffixed(-i128::from(*v));
            quote!(#op::Const(-#magnitude))
        }
        RuleOp::Const(v) => {
            let v = Literal::i64_unsuffixed(*v);
            quote!(#op::Const(#v))
        }
        RuleOp::Axis(i) => quote!(#op::Axis(#i)),
        RuleOp::Arg(i) => quote!(#op::Arg(#i)),
        other => {
            let name = format_ident!("{}", format!("{other:?}"));
            quote!(#op::#name)
        }
    });
    quote!(&[#(#each),*])
}

/// The entry point's rustdoc.
fn docs(entry: &Entry<'_>, safe: bool) -> TokenStream {
    let t = entry.tuned;
    let names: Vec<String> = entry
        .present
        .iter()
        .map(|&(v, _)| format!("`{}`", t.variants[v].name))
        .collect();
    let left: Vec<String> = t
        .variants
        .iter()
        .filter(|v| v.kernel.is_none())
        .map(|v| format!("`{}`", v.name))
        .collect();
    let mut text = format!(
        " Launches the fastest of the {} declared variants of CUDA kernel `{}` for `key` on the \
         GPU model the module is loaded on ({}), over axes {}.\n\n",
        names.len(),
        t.kernel,
        names.join(", "),
        t.axes
            .iter()
            .map(|a| format!("`{a}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !left.is_empty() {
        text.push_str(&format!(
            " Left out of every target by the compiler: {}.\n\n",
            left.join(", ")
        ));
    }
    text.push_str(&format!(
        " Each variant is launched with grid `{}` and block `{}`{}. The first call for a key \
         (on a GPU model) settles it: `KERNEL_TUNE_PIN={}=<variant>`, the tuner's embedded table, \
         the tuning cache, or else timing every variant on this call's arguments, which \
         `outputs` protects: `Idempotent` (the kernel's outputs depend on its inputs alone) or \
         `RestoreWritten` (what it may write is saved before and put back after). Later calls \
         cost a lookup. A variant missing from the GPU's image is left out with a note.\n\n \
         # Errors\n\n Those of the launch; a key whose every variant fails; a written argument \
         `RestoreWritten` cannot save.",
        texts(&t.grid),
        texts(&t.block),
        t.shared
            .as_ref()
            .map(|r| format!(" and `{}` bytes of dynamic shared memory", r.text))
            .unwrap_or_default(),
        t.name
    ));
    if !safe {
        text.push_str(
            "\n\n # Safety\n\n As for the kernel's stub, for every variant and the launch shape \
             its rules give: the kernel stays within the buffers it is given.",
        );
    }
    let lines = text.lines().map(|l| format!(" {}", l.trim_start()));
    quote!(#(#[doc = #lines])*)
}

/// `METADATA`'s `TunedSpec`s.
pub(crate) fn specs(entries: &[Entry<'_>], rt: &TokenStream) -> TokenStream {
    let each = entries.iter().map(|e| {
        let t = e.tuned;
        let name = &t.name;
        let axes = &t.axes;
        let variants = e.present.iter().map(|&(v, k)| {
            let variant = &t.variants[v];
            let (vname, values) = (&variant.name, &variant.values);
            quote!(#rt::spec::VariantSpec { name: #vname, kernel: #k, values: &[#(#values),*] })
        });
        quote!(#rt::spec::TunedSpec { name: #name, axes: &[#(#axes),*], variants: &[#(#variants),*] })
    });
    quote!(&[#(#each),*])
}

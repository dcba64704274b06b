//! The bound each parameter of a stub takes, so that a wrong or missing argument is reported
//! in the kernel's own terms.
//!
//! A stub does not take `impl MutPtr<f32>` or `i32` directly: for parameter `x` (`float*`)
//! of kernel `scale` it takes `impl __args::x<f32, __k::scale>`, a hidden trait implemented
//! for everything that is `MutPtr<f32>`, and for `int n` it takes `impl __args::n<i32,
//! __k::scale>`, implemented for `i32` alone (through the runtime's `Exactly`). When an
//! argument does not fit, rustc reports the outermost unmet bound with that trait's
//! `#[diagnostic::on_unimplemented]` text, which names the parameter and its CUDA type as
//! written, and the kernel through the marker type `K` (`{K}` prints as the marker's name,
//! which is the kernel's):
//!
//! ```text
//! error[E0277]: `&TrackedBuffer<f64>` cannot be passed for parameter `x` (`float*`) of kernel `scale`
//! error[E0277]: `u64` cannot be passed for parameter `n` (`int`) of kernel `scale`
//! ```
//!
//! A parameter's type being a trait's, rustc's help for a missing argument names the
//! parameter (`m.scale(&cfg, x, 2.0, /* n */)`) where a plain type would only be named
//! (`/* i32 */`). A literal still takes its type from the one implementation (`2.0` is an
//! `f32` for `float s`); `n as _` cannot (write `n as i32`).
//!
//! One trait serves every parameter with the same name, CUDA type and way of passing, in
//! every kernel: a thousand-kernel library has a few hundred such traits, not one per
//! parameter, and one empty marker type per kernel. A kernel whose name is not its method's
//! (a namespace, a template family) has its name written into the message instead.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::docs::qualified_base;
use super::takes;
use super::types::{ParamKind, param_kind};
use crate::model::Kernel;
use crate::model::rust::{Planned, param_ident};

/// The module's argument bounds: the shared traits, and which one each pointer parameter
/// of each method takes.
pub(crate) struct ArgBounds {
    /// Shared traits in order of first use.
    traits: Vec<BoundTrait>,
    /// `(method, parameter index)` → index into `traits`.
    by_param: HashMap<(String, usize), usize>,
    /// Methods with at least one parameter that has a trait, each with a marker type.
    markers: Vec<Ident>,
}

struct BoundTrait {
    ident: Ident,
    message: String,
    taken: Taken,
}

/// What a parameter's trait stands for.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Taken {
    /// Device memory the kernel reads (`const T*`).
    Read,
    /// Device memory the kernel may write (`T*`).
    Written,
    /// A value passed as it is (`int n`, a struct): exactly its Rust type.
    Value,
}

impl ArgBounds {
    /// Plans the traits of every method of `parts`.
    pub(crate) fn new(planned: &[Planned<'_>], rt: &TokenStream) -> ArgBounds {
        let mut bounds = ArgBounds {
            traits: Vec::new(),
            by_param: HashMap::new(),
            markers: Vec::new(),
        };
        let mut taken: BTreeSet<String> = BTreeSet::new();
        let mut by_message: HashMap<(String, Taken), usize> = HashMap::new();
        for planned in planned {
            // `shared`: the message names the kernel through `{K}`, so kernels share the trait.
            let (method, kernel, what, shared) = match planned {
                Planned::Single { name, kernel, .. } => {
                    if name == kernel.name.as_str() {
                        (name, *kernel, "kernel `{K}`".to_owned(), true)
                    } else {
                        let what = format!("kernel `{}`", escape(&kernel.name));
                        (name, *kernel, what, false)
                    }
                }
                Planned::Family { name, members, .. } => {
                    let kernel: &Kernel = members[0].kernel;
                    let what = format!("kernel template `{}`", escape(&qualified_base(kernel)));
                    (name, kernel, what, false)
                }
            };
            let mut any = false;
            for (i, p) in kernel.params.iter().enumerate() {
                let how = match param_kind(&p.ty, rt) {
                    ParamKind::ConstPtr(_) => Taken::Read,
                    ParamKind::MutPtr(_) => Taken::Written,
                    ParamKind::Value(_) => Taken::Value,
                    ParamKind::Object { .. } => continue,
                };
                let written = escape(&p.written);
                let param = match p.name.as_deref() {
                    Some(n) if !n.is_empty() => format!("parameter `{n}` (`{written}`)"),
                    _ => format!("parameter {} (`{written}`)", i + 1),
                };
                let message = format!("`{{Self}}` cannot be passed for {param} of {what}");
                let slot = *by_message.entry((message.clone(), how)).or_insert_with(|| {
                    // A trait of one kernel's own is named after both (`ops_axpy_x`).
                    let param = param_ident(p.name.as_deref(), i);
                    let base = if shared {
                        param
                    } else {
                        let param = param.to_string();
                        let method = method.to_string();
                        format_ident!(
                            "{}_{}",
                            method.trim_start_matches("r#"),
                            param.trim_start_matches("r#")
                        )
                    };
                    let ident = free_name(&base, &mut taken);
                    bounds.traits.push(BoundTrait {
                        ident,
                        message,
                        taken: how,
                    });
                    bounds.traits.len() - 1
                });
                bounds.by_param.insert((method.to_string(), i), slot);
                any = true;
            }
            if any {
                bounds.markers.push(method.clone());
            }
        }
        bounds
    }

    /// The bound of parameter `index` of `method`, over its element or value type `ty`:
    /// `__args::x<ty, __k::method>`.
    pub(crate) fn bound(
        &self,
        method: &Ident,
        index: usize,
        kind: &ParamKind,
        rt: &TokenStream,
    ) -> TokenStream {
        let (elem, base) = match kind {
            ParamKind::ConstPtr(elem) => (elem, quote!(#rt::__private::ConstPtr<#elem>)),
            ParamKind::MutPtr(elem) => (elem, quote!(#rt::__private::MutPtr<#elem>)),
            ParamKind::Value(ty) => (ty, quote!(#rt::__private::Exactly<#ty>)),
            ParamKind::Object { .. } => return quote!(::core::marker::Sized),
        };
        match self.by_param.get(&(method.to_string(), index)) {
            Some(&slot) => {
                let ident = &self.traits[slot].ident;
                quote!(__args::#ident<#elem, __k::#method>)
            }
            // `new` gave every parameter but an object of every planned method a trait;
            // this arm only keeps codegen total.
            None => base,
        }
    }

    /// The hidden `__args` module of the shared traits, and the `__k` module of the kernels'
    /// marker types.
    pub(crate) fn module(&self, rt: &TokenStream) -> TokenStream {
        if self.traits.is_empty() {
            return quote!();
        }
        // The wrappers are named with their crate, which the user may not have imported.
        let krate = rt.to_string().replace(' ', "");
        let krate = krate.trim_start_matches("::");
        let traits = self.traits.iter().map(|t| {
            let (ident, message) = (&t.ident, &t.message);
            let (base, label, note) = match t.taken {
                Taken::Written => (
                    quote!(#rt::__private::MutPtr<E>),
                    "expected mutable device memory holding `{E}`",
                    takes::error_note(true, krate),
                ),
                Taken::Read => (
                    quote!(#rt::__private::ConstPtr<E>),
                    "expected device memory holding `{E}`",
                    takes::error_note(false, krate),
                ),
                Taken::Value => (
                    quote!(#rt::__private::Exactly<E>),
                    "expected `{E}`",
                    "a value parameter takes exactly its Rust type: convert the argument first \
                     (`as`, `From`, `TryFrom`)"
                        .to_owned(),
                ),
            };
            quote! {
                #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
                pub trait #ident<E, K>: #base {}
                // The error is this trait's: rustc does not go on to name the runtime's
                // internal trait, its impls or the macros that write them.
                #[diagnostic::do_not_recommend]
                impl<E, K, A: #base> #ident<E, K> for A {}
            }
        });
        let markers = &self.markers;
        quote! {
            /// Argument bounds of the launch methods (see `cuda_kernel_build::__private::codegen`):
            /// one trait per parameter name, CUDA type and way of passing, and one marker type
            /// per kernel, so that a mismatch or a missing argument names the kernel and the
            /// parameter.
            #[doc(hidden)]
            pub mod __args {
                #(#traits)*
            }
            /// One marker type per launch method, named after it (see `__args`).
            #[doc(hidden)]
            pub mod __k {
                #(pub enum #markers {})*
            }
        }
    }
}

/// `base`, or `base_2`, `base_3`, ... : the first not yet taken.
fn free_name(base: &Ident, taken: &mut BTreeSet<String>) -> Ident {
    let text = base.to_string();
    if taken.insert(text.clone()) {
        return base.clone();
    }
    let stem = text.trim_start_matches("r#");
    (2..)
        .map(|n| format!("{stem}_{n}"))
        .find(|candidate| taken.insert(candidate.clone()))
        .map(|name| format_ident!("{name}"))
        .unwrap_or_else(|| base.clone())
}

/// Braces are format syntax in `on_unimplemented` strings.
fn escape(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

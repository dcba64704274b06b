//! The bound each parameter of a stub takes, so that a wrong or missing argument is reported
//! in the kernel's own terms.
//!
//! A stub does not take `impl MutPtr<f32>` or `i32` directly: for parameter `x` (`float*`)
//! of kernel `scale` it takes `impl __args::x<f32, __k::scale>`, a hidden trait implemented
//! for everything that is `MutPtr<f32>`, and for `int n` it takes `impl __args::n<i32,
//! __k::scale>`, implemented for `i32` alone (through the runtime's `Exactly`). When an
//! argument does not fit, rustc reports the outermost unmet bound with that trait's
//! `#[diagnostic::on_unimplemented]` text, which names the parameter and its CUDA type as
//! written, and the kernel through the marker type `__K` (`{__K}` prints as the marker's name,
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
use super::types::{ParamKind, Spelled};
use crate::model::Kernel;
use crate::model::rust::Planned;

/// The module's argument bounds: the shared traits, and the bound each parameter of each
/// method takes.
pub(crate) struct ArgBounds {
    /// Shared traits in order of first use.
    traits: Vec<BoundTrait>,
    /// Methods with at least one parameter that has a trait, each with a marker type.
    markers: Vec<Ident>,
    /// Per method, in the plan's order, the bound each parameter takes (`__args::x<ty,
    /// __k::method>` over its element or value type `ty`).
    pub(crate) params: Vec<Vec<TokenStream>>,
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
    /// Plans the traits of every method, and the bound of each of its parameters.
    pub(crate) fn new(planned: &[Planned<'_>], spelled: &[Spelled], rt: &TokenStream) -> ArgBounds {
        let mut bounds = ArgBounds {
            traits: Vec::new(),
            markers: Vec::new(),
            params: Vec::new(),
        };
        let mut taken: BTreeSet<String> = BTreeSet::new();
        let mut by_message: HashMap<(String, Taken), usize> = HashMap::new();
        for (planned, spelled) in planned.iter().zip(spelled) {
            // `shared`: the message names the kernel through `{__K}`, so kernels share the trait.
            let (method, kernel, what, shared) = match planned {
                Planned::Single { name, kernel, .. } => {
                    if name == kernel.name.as_str() {
                        (name, *kernel, "kernel `{__K}`".to_owned(), true)
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
            let mut params = Vec::new();
            for (i, (p, sp)) in kernel.params.iter().zip(&spelled.params).enumerate() {
                let how = match &sp.described {
                    ParamKind::ConstPtr(_) => Some(Taken::Read),
                    ParamKind::MutPtr(_) => Some(Taken::Written),
                    ParamKind::Value(_) => Some(Taken::Value),
                    ParamKind::Object { .. } => None,
                };
                let slot = how.map(|how| {
                    let written = escape(&p.written);
                    let param = match p.name.as_deref() {
                        Some(n) if !n.is_empty() => format!("parameter `{n}` (`{written}`)"),
                        _ => format!("parameter {} (`{written}`)", i + 1),
                    };
                    let message = format!("`{{Self}}` cannot be passed for {param} of {what}");
                    *by_message.entry((message.clone(), how)).or_insert_with(|| {
                        // A trait of one kernel's own is named after both (`ops_axpy_x`).
                        let param = &sp.ident;
                        let base = if shared {
                            param.clone()
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
                    })
                });
                any |= slot.is_some();
                let trait_ident = slot.map(|slot| &bounds.traits[slot].ident);
                params.push(bound(method, trait_ident, &sp.kind, rt));
            }
            if any {
                bounds.markers.push(method.clone());
            }
            bounds.params.push(params);
        }
        bounds
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
                    quote!(#rt::__private::MutPtr<__E>),
                    "expected mutable device memory holding `{__E}`",
                    takes::error_note(true, krate),
                ),
                Taken::Read => (
                    quote!(#rt::__private::ConstPtr<__E>),
                    "expected device memory holding `{__E}`",
                    takes::error_note(false, krate),
                ),
                Taken::Value => (
                    quote!(#rt::__private::Exactly<__E>),
                    "expected `{__E}`",
                    "a value parameter takes exactly its Rust type: convert the argument first \
                     (`as`, `From`, `TryFrom`)"
                        .to_owned(),
                ),
            };
            quote! {
                #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
                pub trait #ident<__E, __K>: #base {}
                // The error is this trait's: rustc does not go on to name the runtime's
                // internal trait, its impls or the macros that write them.
                #[diagnostic::do_not_recommend]
                impl<__E, __K, __A: #base> #ident<__E, __K> for __A {}
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

/// The bound of a parameter passed as `kind` whose trait is `ident`, over its element or
/// value type `ty`: `__args::x<ty, __k::method>`.
fn bound(method: &Ident, ident: Option<&Ident>, kind: &ParamKind, rt: &TokenStream) -> TokenStream {
    let (elem, base) = match kind {
        ParamKind::ConstPtr(elem) => (elem, quote!(#rt::__private::ConstPtr<#elem>)),
        ParamKind::MutPtr(elem) => (elem, quote!(#rt::__private::MutPtr<#elem>)),
        ParamKind::Value(ty) => (ty, quote!(#rt::__private::Exactly<#ty>)),
        ParamKind::Object { .. } => return quote!(::core::marker::Sized),
    };
    match ident {
        Some(ident) => quote!(__args::#ident<#elem, __k::#method>),
        // Every parameter but an object has a trait; this arm only keeps codegen total.
        None => base,
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

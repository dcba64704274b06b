//! The bound each pointer parameter of a stub takes, so that a wrong argument is reported
//! in the kernel's own terms.
//!
//! A stub does not take `impl MutPtr<f32>` directly: for parameter `x` of kernel `scale` it
//! takes `impl __args::scale::x<f32>`, a hidden trait implemented for everything that is
//! `MutPtr<f32>`. When an argument does not fit, rustc reports the outermost unmet bound with
//! that trait's `#[diagnostic::on_unimplemented]` text, which names the kernel, the parameter
//! and its CUDA type as written:
//!
//! ```text
//! error[E0277]: `&CudaSlice<f64>` cannot be passed for parameter `x` (`float*`) of kernel `scale`
//! ```

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::docs::qualified_base;
use super::names::param_ident;
use super::templates::{Planned, plan};
use super::types::{ParamKind, param_kind};
use crate::model::Kernel;
use crate::pipeline::BuiltModule;

/// The bound of a pointer parameter: `__args::<method>::<param>` (generic over the element).
pub(crate) fn bound(method: &Ident, param: &Ident) -> TokenStream {
    quote!(__args::#method::#param)
}

/// The hidden `__args` module: one trait per pointer parameter of every stub.
pub(crate) fn module(parts: &BuiltModule, rt: &TokenStream) -> TokenStream {
    let kernels: Vec<TokenStream> = plan(&parts.info, rt)
        .into_iter()
        .filter_map(|planned| {
            let (method, kernel, what) = match planned {
                Planned::Single { name, kernel, .. } => {
                    (name, kernel, format!("kernel `{}`", kernel.name))
                }
                Planned::Family { name, members, .. } => {
                    let kernel = members[0].kernel;
                    let what = format!("kernel template `{}`", qualified_base(kernel));
                    (name, kernel, what)
                }
            };
            let traits = param_traits(kernel, &what, rt);
            let doc = format!(" Argument bounds of {what}.");
            (!traits.is_empty()).then(|| {
                quote! {
                    #[doc = #doc]
                    pub mod #method {
                        #(#traits)*
                    }
                }
            })
        })
        .collect();
    if kernels.is_empty() {
        return quote!();
    }
    quote! {
        /// Argument bounds of the launch methods (see `kernel_build::__private::codegen`): one trait per
        /// pointer parameter, so that a mismatch names the kernel and the parameter.
        #[doc(hidden)]
        pub mod __args {
            #(#kernels)*
        }
    }
}

fn param_traits(kernel: &Kernel, what: &str, rt: &TokenStream) -> Vec<TokenStream> {
    kernel
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let (base, label, note) = match param_kind(&p.ty, rt) {
                ParamKind::Value(_) | ParamKind::Object { .. } => return None,
                ParamKind::ConstPtr(_) => (
                    quote!(#rt::__private::ConstPtr<E>),
                    "expected device memory holding `{E}`",
                    "pass `&CudaSlice<{E}>`, `&CudaView<{E}>`, `&mut CudaSlice<{E}>`, `&UnifiedSlice<{E}>`, `In(&[{E}])` or `InOut(&mut [{E}])`",
                ),
                ParamKind::MutPtr(_) => (
                    quote!(#rt::__private::MutPtr<E>),
                    "expected mutable device memory holding `{E}`",
                    "pass `&mut CudaSlice<{E}>`, `&mut CudaViewMut<{E}>`, `&mut UnifiedSlice<{E}>`, `Out(&mut [{E}])` or `InOut(&mut [{E}])`",
                ),
            };
            let ident = param_ident(p.name.as_deref(), i);
            let written = escape(&p.written);
            let param = match p.name.as_deref() {
                Some(n) if !n.is_empty() => format!("parameter `{n}` (`{written}`)"),
                _ => format!("parameter {} (`{written}`)", i + 1),
            };
            let message = format!("`{{Self}}` cannot be passed for {param} of {}", escape(what));
            let doc = format!(" What may be passed for {param} of {what}.");
            Some(quote! {
                #[doc = #doc]
                #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
                pub trait #ident<E>: #base {}
                impl<E, A: #base> #ident<E> for A {}
            })
        })
        .collect()
}

/// Braces are format syntax in `on_unimplemented` strings.
fn escape(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

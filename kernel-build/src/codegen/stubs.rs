//! One launch method per kernel (or per template family) on the `Module` handle.
//!
//! A stub is one call: `self.inner.launch(index, cfg, (args...))` with its arguments in the
//! verified parameter order. The runtime prepares each pointer argument (stream ordering for
//! cudarc buffers, copies for `In`/`Out`/`InOut`), builds an array of parameter pointers on
//! the stack, launches, then finishes each prepared argument.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::CodegenOptions;
use super::arg_bounds::ArgBounds;
use super::types::{ParamKind, Spelled, SpelledParam};
use crate::model::rust::{Member, Planned, passing};

/// Every launch method of the module, each with its rustdoc (`docs`, in the plan's order).
pub(crate) fn methods(
    planned: &[Planned<'_>],
    spelled: &[Spelled],
    bounds: &ArgBounds,
    docs: &[TokenStream],
    opts: &CodegenOptions,
    rt: &TokenStream,
) -> TokenStream {
    let hidden = opts.hidden_stubs.then(|| quote!(#[doc(hidden)]));
    let methods = planned
        .iter()
        .zip(spelled)
        .zip(bounds.params.iter().zip(docs))
        .map(|((planned, spelled), (bounds, doc))| {
            let name = planned.name();
            let (generics, index) = match planned {
                Planned::Single { index, .. } => {
                    let index = proc_macro2::Literal::usize_unsuffixed(*index);
                    (quote!(), quote!(#index))
                }
                Planned::Family { trait_name, .. } => (
                    quote!(<T: templates::#trait_name>),
                    quote!(<T as templates::#trait_name>::INDEX),
                ),
            };
            let safe = opts.safe_kernels.contains(&name.to_string());
            let stub = Stub {
                params: &spelled.params,
                bounds,
                index: &index,
                safe,
                doc,
            };
            method(name, &generics, &stub, rt)
        });
    quote!(#(#hidden #methods)*)
}

/// The hidden module of template traits, if any family needs one.
pub(crate) fn template_traits(
    planned: &[Planned<'_>],
    spelled: &[Spelled],
    rt: &TokenStream,
) -> TokenStream {
    let traits: Vec<TokenStream> = planned
        .iter()
        .zip(spelled)
        .filter_map(|(planned, spelled)| match planned {
            Planned::Family {
                name,
                trait_name,
                members,
                assoc,
            } => Some(family_trait(name, trait_name, members, assoc, spelled, rt)),
            Planned::Single { .. } => None,
        })
        .collect();
    if traits.is_empty() {
        return quote!();
    }
    quote! {
        /// One trait per CUDA template kernel of this module, implemented for the Rust
        /// type of each instantiation: it selects the instantiation a generic launch
        /// method runs, and lets generic code of your own name the instantiations.
        pub mod templates {
            #[allow(unused_imports)]
            use super::*;
            #(#traits)*
        }
    }
}

fn family_trait(
    kernel: &Ident,
    trait_name: &Ident,
    members: &[Member<'_>],
    assoc: &[Option<Ident>],
    spelled: &Spelled,
    rt: &TokenStream,
) -> TokenStream {
    let first = members[0].kernel;
    let decls = assoc.iter().enumerate().filter_map(|(i, id)| {
        let id = id.as_ref()?;
        let doc = match first.params[i].name.as_deref() {
            Some(p) => format!(" The Rust type of parameter `{p}` in this instantiation."),
            None => format!(" The Rust type of parameter {i} in this instantiation."),
        };
        // A value parameter's type is passed as it is, so it must be plain device data.
        let bound = (passing(&first.params[i].ty).shape() == 0).then(|| quote!(: #rt::DeviceRepr));
        Some(quote! {
            #[doc = #doc]
            type #id #bound;
        })
    });
    let impls = members.iter().zip(&spelled.members).map(|(m, spelled)| {
        let key = &spelled.key;
        let index = m.index;
        let types = assoc
            .iter()
            .zip(&spelled.types)
            .filter_map(|(id, ty)| Some((id.as_ref()?, ty.as_ref()?)))
            .map(|(id, ty)| quote!(type #id = #ty;));
        let doc = format!(" Selects `{}`.", m.kernel.name);
        quote! {
            #[doc = #doc]
            impl #trait_name for #key {
                const INDEX: usize = #index;
                #(#types)*
            }
        }
    });
    let doc = format!(
        " The instantiations of CUDA template `{}`: implemented for the Rust type that selects each one in `{kernel}::<T>`.",
        super::docs::qualified_base(first)
    );
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        pub trait #trait_name {
            /// The instantiation's index among the module's kernels.
            const INDEX: usize;
            #(#decls)*
        }
        #(#impls)*
    }
}

/// What one launch method is made of.
struct Stub<'s> {
    params: &'s [SpelledParam],
    /// The bound each parameter takes (see [`ArgBounds`]).
    bounds: &'s [TokenStream],
    /// The kernel's index among the module's kernels.
    index: &'s TokenStream,
    safe: bool,
    doc: &'s TokenStream,
}

fn method(name: &Ident, generics: &TokenStream, stub: &Stub<'_>, rt: &TokenStream) -> TokenStream {
    let Stub {
        params,
        bounds,
        index,
        safe,
        doc,
    } = *stub;
    let args = params.iter().zip(bounds).map(|(p, bound)| {
        let id = &p.ident;
        match &p.kind {
            ParamKind::Value(_) | ParamKind::ConstPtr(_) | ParamKind::MutPtr(_) => {
                quote!(#id: impl #bound)
            }
            ParamKind::Object { object, .. } => quote!(#id: &#object),
        }
    });
    // Every argument goes to the runtime as one tuple, in the verified parameter order:
    // scalars, vector types and raw pointers as they are, other values (structs, a texture
    // or surface object's handle) wrapped to be passed as they are, pointer arguments and
    // tensor maps (which order their buffer's uses) as given.
    let values = params.iter().map(|p| {
        let id = &p.ident;
        match &p.kind {
            // `into_exact` comes from the bound's `Exactly<T>`, the one method the
            // generic argument has.
            ParamKind::Value(_) if p.bare => quote!(#id.into_exact()),
            ParamKind::Value(_) => quote!(#rt::ByValue(#id.into_exact())),
            ParamKind::Object { ordered: true, .. } => quote!(#id),
            ParamKind::Object { .. } => quote!(#rt::ByValue(#id.handle())),
            ParamKind::ConstPtr(_) | ParamKind::MutPtr(_) => quote!(#id),
        }
    });
    let unsafety = if safe { quote!() } else { quote!(unsafe) };
    // The `unsafe` block below is sound: an unsafe stub's caller upholds the
    // kernel's contract (its `# Safety` section); a safe stub's crate vouched for
    // the kernel in an `unsafe extern` block. The tuple follows the verified layout.
    quote! {
        #doc
        pub #unsafety fn #name #generics(
            &self,
            cfg: &#rt::Launch,
            #(#args),*
        ) -> ::core::result::Result<(), #rt::Error> {
            unsafe { self.inner.launch(#index, cfg, (#(#values,)*)) }
        }
    }
}

//! One launch method per kernel (or per template family) on the `Module` handle.
//!
//! A stub is one call: `self.inner.launch(index, cfg, (args...))` with its arguments in the
//! verified parameter order. The runtime prepares each pointer argument (stream ordering for
//! cudarc buffers, copies for `In`/`Out`/`InOut`), builds an array of parameter pointers on
//! the stack, launches, then finishes each prepared argument.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::arg_bounds::ArgBounds;
use super::types::{ParamKind, key_tokens, param_kind, param_kind_of, type_tokens};
use super::{CodegenOptions, docs};
use crate::model::Kernel;
use crate::model::built::BuiltModule;
use crate::model::rust::{Member, Planned, param_ident, passes_bare, passing};

/// A parameter as the stub passes it.
struct StubParam {
    ident: Ident,
    kind: ParamKind,
    /// The bound a pointer or value argument meets (see [`ArgBounds`]).
    bound: TokenStream,
    /// A value the runtime takes as it is (a scalar, a vector type, a raw pointer): no
    /// `ByValue` wrapper.
    bare: bool,
}

/// Every launch method of the module.
pub(crate) fn methods(
    parts: &BuiltModule,
    planned: &[Planned<'_>],
    opts: &CodegenOptions,
    bounds: &ArgBounds,
    rt: &TokenStream,
) -> TokenStream {
    let hidden = opts.hidden_stubs.then(|| quote!(#[doc(hidden)]));
    let methods = planned.iter().map(|planned| match planned {
        Planned::Single {
            name,
            index,
            kernel,
        } => {
            let params = kernel
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let (kind, bare) = param_kind_of(p, &parts.info.enums, rt);
                    StubParam {
                        ident: param_ident(p.name.as_deref(), i),
                        bound: bounds.bound(name, i, &kind, rt),
                        kind,
                        bare,
                    }
                })
                .collect::<Vec<_>>();
            let safe = opts.safe_kernels.contains(&name.to_string());
            let doc = docs::kernel_doc(kernel, &parts.targets, &parts.info.enums, safe, rt);
            let index = proc_macro2::Literal::usize_unsuffixed(*index);
            method(name, &quote!(), &params, &quote!(#index), safe, &doc, rt)
        }
        Planned::Family {
            name,
            trait_name,
            members,
            assoc,
        } => {
            let safe = opts.safe_kernels.contains(&name.to_string());
            let family = Family {
                name,
                trait_name,
                members,
                assoc,
            };
            family_method(&family, &parts.targets, safe, bounds, rt)
        }
    });
    quote!(#(#hidden #methods)*)
}

/// The hidden module of template traits, if any family needs one.
pub(crate) fn template_traits(planned: &[Planned<'_>], rt: &TokenStream) -> TokenStream {
    let traits: Vec<TokenStream> = planned
        .iter()
        .filter_map(|planned| match planned {
            Planned::Family {
                name,
                trait_name,
                members,
                assoc,
            } => Some(family_trait(name, trait_name, members, assoc, rt)),
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
    let impls = members.iter().map(|m| {
        let key = key_tokens(&m.key, rt);
        let index = m.index;
        let types = assoc.iter().enumerate().filter_map(|(i, id)| {
            let id = id.as_ref()?;
            let ty = type_tokens(&passing(&m.kernel.params[i].ty).rust_type(), rt);
            Some(quote!(type #id = #ty;))
        });
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

/// A template family's parts, as planned.
struct Family<'p, 'a> {
    name: &'p Ident,
    trait_name: &'p Ident,
    members: &'p [Member<'a>],
    assoc: &'p [Option<Ident>],
}

fn family_method(
    family: &Family<'_, '_>,
    targets: &[String],
    safe: bool,
    bounds: &ArgBounds,
    rt: &TokenStream,
) -> TokenStream {
    let Family {
        name,
        trait_name,
        members,
        assoc,
    } = *family;
    let first: &Kernel = members[0].kernel;
    let params = first
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let kind = param_kind(&p.ty, rt);
            // A value whose type varies is only known to be `DeviceRepr`: it goes wrapped.
            let (kind, bare) = if let Some(id) = &assoc[i] {
                let ty = quote!(<T as templates::#trait_name>::#id);
                let kind = match passing(&p.ty).shape() {
                    0 => ParamKind::Value(ty),
                    1 => ParamKind::ConstPtr(ty),
                    _ => ParamKind::MutPtr(ty),
                };
                (kind, false)
            } else {
                (kind, passes_bare(&p.ty))
            };
            StubParam {
                ident: param_ident(p.name.as_deref(), i),
                bound: bounds.bound(name, i, &kind, rt),
                kind,
                bare,
            }
        })
        .collect::<Vec<_>>();
    let generics = quote!(<T: templates::#trait_name>);
    let index = quote!(<T as templates::#trait_name>::INDEX);
    let doc = docs::family_doc(name, members, targets, safe, rt);
    method(name, &generics, &params, &index, safe, &doc, rt)
}

fn method(
    name: &Ident,
    generics: &TokenStream,
    params: &[StubParam],
    index: &TokenStream,
    safe: bool,
    doc: &TokenStream,
    rt: &TokenStream,
) -> TokenStream {
    let args = params.iter().map(|p| {
        let id = &p.ident;
        match &p.kind {
            ParamKind::Value(_) | ParamKind::ConstPtr(_) | ParamKind::MutPtr(_) => {
                let bound = &p.bound;
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

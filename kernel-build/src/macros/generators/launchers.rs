//! The launchers of generated kernels: one method per function of an `elementwise!`,
//! `reduction!` or `scan!` module, which checks every slice's length, computes the launch
//! from the geometry the source was written for, allocates scratch on the module's stream,
//! and calls the kernels' typed stubs (hidden: the launchers are the module's face).
//!
//! A generic function (`for T in [f32, f64]`) dispatches through a sealed trait
//! `{Name}Element` implemented for each listed type. A launcher is a safe `fn` when the
//! generator found that the kernel stays within its slices; otherwise an `unsafe fn` whose
//! `# Safety` section gives the generator's reason.
//!
//! Their input is the plan the expansion makes ([`FnPlan`], one per function, with its
//! [`Instance`]s), defined here beside what reads it.

use cuda_kernel_generate::{Access, Dtype};
use heck::ToUpperCamelCase;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::input::{Body, ElemType, GenFn, GeneratorKind};
use crate::codegen::{self, CodegenOptions};
use crate::model::built::BuiltModule;

/// One function of the module, planned: what the launchers are made from.
pub(crate) struct FnPlan<'a> {
    pub kind: GeneratorKind,
    pub item: &'a GenFn,
    pub instances: Vec<Instance>,
}

/// One instantiation of a function.
pub(crate) struct Instance {
    pub dtype: Option<Dtype>,
    pub entry_points: Vec<String>,
    pub width: u32,
    pub unsafe_reason: Option<String>,
}

/// The module: the shell with its stubs (hidden), the launchers, the dispatch traits.
pub(crate) fn module(
    parts: &BuiltModule,
    opts: &CodegenOptions,
    plans: &[FnPlan<'_>],
) -> TokenStream {
    let rt = codegen::runtime_tokens(opts);
    let methods = plans.iter().map(|p| launcher(p, &rt));
    let traits = plans.iter().filter_map(|p| dispatch_trait(p, &rt));
    let mut sealed_types: Vec<Dtype> = plans
        .iter()
        .flat_map(|p| p.instances.iter().filter_map(|i| i.dtype))
        .collect();
    sealed_types.sort_unstable();
    sealed_types.dedup();
    let sealed_impls = sealed_types.iter().map(|d| {
        let ty = dtype_tokens(*d, &rt);
        quote!(impl Sealed for #ty {})
    });
    let items = quote! {
        #[doc(hidden)]
        pub mod __sealed {
            /// Implemented for the element types the module's generic functions list.
            pub trait Sealed {}
            #(#sealed_impls)*
        }
        #(#traits)*
    };
    codegen::module_with_items(parts, opts, quote!(#(#methods)*), items)
}

/// The Rust type of an element type, named through the runtime for the 16-bit floats.
fn dtype_tokens(d: Dtype, rt: &TokenStream) -> TokenStream {
    match d {
        Dtype::F16 => quote!(#rt::f16),
        Dtype::Bf16 => quote!(#rt::bf16),
        other => {
            let ident = format_ident!("{}", other.rust_name());
            quote!(#ident)
        }
    }
}

/// An element type as written in a signature: the generic as `generic`, or concrete.
fn elem_tokens(e: ElemType, generic: &TokenStream, rt: &TokenStream) -> TokenStream {
    match e {
        ElemType::Generic => generic.clone(),
        ElemType::Concrete(d) => dtype_tokens(d, rt),
    }
}

/// The parameters of a launcher, with the generic written as `generic`.
fn params(plan: &FnPlan<'_>, generic: &TokenStream, rt: &TokenStream) -> Vec<TokenStream> {
    plan.item
        .params
        .iter()
        .map(|p| {
            let name = &p.name;
            let ty = elem_tokens(p.elem, generic, rt);
            match p.access {
                Access::Scalar => quote!(#name: #ty),
                Access::In => {
                    quote!(#name: impl #rt::__private::ConstPtr<#ty> + #rt::__private::SliceLen)
                }
                Access::Out => {
                    quote!(#name: impl #rt::__private::MutPtr<#ty> + #rt::__private::SliceLen)
                }
            }
        })
        .collect()
}

fn names<'a>(plan: &'a FnPlan<'a>) -> Vec<&'a Ident> {
    plan.item.params.iter().map(|p| &p.name).collect()
}

/// The first reason any instantiation may leave its slices.
fn unsafe_reason<'a>(plan: &'a FnPlan<'a>) -> Option<&'a str> {
    plan.instances
        .iter()
        .find_map(|i| i.unsafe_reason.as_deref())
}

fn trait_ident(plan: &FnPlan<'_>) -> Ident {
    format_ident!(
        "{}Element",
        plan.item.name.to_string().to_upper_camel_case()
    )
}

/// The launcher method(s) of one function.
fn launcher(plan: &FnPlan<'_>, rt: &TokenStream) -> TokenStream {
    let item = plan.item;
    let name = &item.name;
    let vis = &item.vis;
    let attrs = &item.attrs;
    let doc = docs(plan);
    let unsafety = unsafe_reason(plan).map(|_| quote!(unsafe));
    let args = names(plan);
    let into_name = format_ident!("{}_into", name);
    match &item.generic {
        Some((t, _)) => {
            let t_tokens = quote!(#t);
            let params = params(plan, &t_tokens, rt);
            let bound = trait_ident(plan);
            let call = format_ident!("__{}", name);
            let inner = quote!(<#t as #bound>::#call(self, #(#args),*));
            let call_body = match unsafety {
                Some(_) => quote!(unsafe { #inner }),
                None => inner,
            };
            match plan.kind {
                GeneratorKind::Reduction => {
                    let out = elem_tokens(item.output.unwrap_or(ElemType::Generic), &t_tokens, rt);
                    let call_into = format_ident!("__{}_into", name);
                    let inner_into = quote!(<#t as #bound>::#call_into(self, #(#args,)* out));
                    let into_body = match unsafety {
                        Some(_) => quote!(unsafe { #inner_into }),
                        None => inner_into,
                    };
                    let into_doc = into_doc(plan);
                    quote! {
                        #(#attrs)*
                        #doc
                        #vis #unsafety fn #name<#t: #bound>(&self, #(#params),*) -> ::core::result::Result<#out, #rt::Error> {
                            #call_body
                        }
                        #into_doc
                        #vis #unsafety fn #into_name<#t: #bound>(&self, #(#params,)* out: impl #rt::__private::MutPtr<#out> + #rt::__private::SliceLen) -> ::core::result::Result<(), #rt::Error> {
                            #into_body
                        }
                    }
                }
                _ => quote! {
                    #(#attrs)*
                    #doc
                    #vis #unsafety fn #name<#t: #bound>(&self, #(#params),*) -> ::core::result::Result<(), #rt::Error> {
                        #call_body
                    }
                },
            }
        }
        None => {
            let instance = &plan.instances[0];
            let none = quote!();
            let params = params(plan, &none, rt);
            let m = quote!(self);
            match plan.kind {
                GeneratorKind::Reduction => {
                    let out = elem_tokens(item.output.unwrap_or(ElemType::Generic), &none, rt);
                    let into = body(plan, instance, &m, rt);
                    let into_doc = into_doc(plan);
                    let self_ = quote!(self);
                    let returning = returning(
                        &self_,
                        &out,
                        &quote!(Module::#into_name),
                        &args,
                        &unsafety,
                        rt,
                    );
                    quote! {
                        #(#attrs)*
                        #doc
                        #vis #unsafety fn #name(&self, #(#params),*) -> ::core::result::Result<#out, #rt::Error> {
                            #returning
                        }
                        #into_doc
                        #vis #unsafety fn #into_name(&self, #(#params,)* out: impl #rt::__private::MutPtr<#out> + #rt::__private::SliceLen) -> ::core::result::Result<(), #rt::Error> {
                            #into
                        }
                    }
                }
                _ => {
                    let body = body(plan, instance, &m, rt);
                    quote! {
                        #(#attrs)*
                        #doc
                        #vis #unsafety fn #name(&self, #(#params),*) -> ::core::result::Result<(), #rt::Error> {
                            #body
                        }
                    }
                }
            }
        }
    }
}

/// The sealed trait a generic function dispatches through, with one impl per type.
fn dispatch_trait(plan: &FnPlan<'_>, rt: &TokenStream) -> Option<TokenStream> {
    plan.item.generic.as_ref()?;
    let name = &plan.item.name;
    let bound = trait_ident(plan);
    let call = format_ident!("__{}", name);
    let call_into = format_ident!("__{}_into", name);
    let self_ty = quote!(Self);
    let params = params(plan, &self_ty, rt);
    let unsafety = unsafe_reason(plan).map(|_| quote!(unsafe));
    let doc = format!(
        " The element types of [`Module::{name}`]: {}.",
        plan.instances
            .iter()
            .filter_map(|i| i.dtype)
            .map(|d| format!("`{}`", d.rust_name()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let reduction = plan.kind == GeneratorKind::Reduction;
    let out = elem_tokens(plan.item.output.unwrap_or(ElemType::Generic), &self_ty, rt);
    let decls = if reduction {
        quote! {
            #[doc(hidden)]
            #unsafety fn #call(m: &Module, #(#params),*) -> ::core::result::Result<#out, #rt::Error>;
            #[doc(hidden)]
            #unsafety fn #call_into(m: &Module, #(#params,)* out: impl #rt::__private::MutPtr<#out> + #rt::__private::SliceLen) -> ::core::result::Result<(), #rt::Error>;
        }
    } else {
        quote! {
            #[doc(hidden)]
            #unsafety fn #call(m: &Module, #(#params),*) -> ::core::result::Result<(), #rt::Error>;
        }
    };
    let args = names(plan);
    let m_ = quote!(m);
    let returning = returning(
        &m_,
        &out,
        &quote!(<Self as #bound>::#call_into),
        &args,
        &unsafety,
        rt,
    );
    let impls = plan.instances.iter().map(|inst| {
        let ty = dtype_tokens(inst.dtype.unwrap_or(Dtype::F32), rt);
        let body = body(plan, inst, &m_, rt);
        let methods = if reduction {
            quote! {
                #unsafety fn #call(m: &Module, #(#params),*) -> ::core::result::Result<#out, #rt::Error> {
                    #returning
                }
                #unsafety fn #call_into(m: &Module, #(#params,)* out: impl #rt::__private::MutPtr<#out> + #rt::__private::SliceLen) -> ::core::result::Result<(), #rt::Error> {
                    #body
                }
            }
        } else {
            quote! {
                #unsafety fn #call(m: &Module, #(#params),*) -> ::core::result::Result<(), #rt::Error> {
                    #body
                }
            }
        };
        quote! {
            impl #bound for #ty {
                #methods
            }
        }
    });
    let listed = plan
        .instances
        .iter()
        .filter_map(|i| i.dtype)
        .map(|d| format!("`{}`", d.rust_name()))
        .collect::<Vec<_>>()
        .join(", ");
    let message = format!("`{name}` is not generated for `{{Self}}`");
    let label = format!("`{name}` takes {listed} here");
    let note =
        format!("the element types of `{name}` are those of its `for T in [...]` list: {listed}");
    Some(quote! {
        #[doc = #doc]
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #bound: ::core::marker::Copy + 'static + __sealed::Sealed {
            #decls
        }
        #(#impls)*
    })
}

/// The body of a reduction's value-returning launcher: a one-value buffer on `m`'s stream,
/// the `_into` launcher (`into`, called with the parameters and the buffer), the value read
/// back.
fn returning(
    m: &TokenStream,
    out: &TokenStream,
    into: &TokenStream,
    args: &[&Ident],
    unsafety: &Option<TokenStream>,
    rt: &TokenStream,
) -> TokenStream {
    quote! {
        let mut __out = #rt::__private::scratch::<#out>(#m.stream(), 1)?;
        #unsafety { #into(#m, #(#args,)* &mut __out)?; }
        #rt::__private::read_one(#m.stream(), &__out)
    }
}

/// The body of one instantiation: lengths, launch, scratch, stub calls. `m` is the module
/// handle (`self` or `m`); the parameters are in scope by their names (and `out` for a
/// reduction's output).
fn body(plan: &FnPlan<'_>, inst: &Instance, m: &TokenStream, rt: &TokenStream) -> TokenStream {
    let label = plan.item.name.to_string();
    let slices: Vec<TokenStream> = plan
        .item
        .params
        .iter()
        .filter(|p| p.access != Access::Scalar)
        .map(|p| {
            let name = &p.name;
            let text = name.to_string();
            quote!((#text, #rt::__private::SliceLen::slice_len(&#name)))
        })
        .collect();
    let n = quote! {
        let __n = #rt::__private::common_len(#label, &[#(#slices),*])?;
    };
    let stub = |k: usize| format_ident!("{}", inst.entry_points[k]);
    let width = inst.width;
    let all = names(plan);
    match plan.kind {
        GeneratorKind::Elementwise => {
            let s = stub(0);
            quote! {
                #n
                if __n == 0 {
                    return ::core::result::Result::Ok(());
                }
                let __cfg = #rt::__private::elementwise_launch(__n, #width);
                // SAFETY: every slice holds `n` elements (checked above) and the kernel
                // touches each only at `[i]`, `i < n`, or the launcher is `unsafe`.
                unsafe { #m.#s(&__cfg, #(#all,)* __n as i64) }
            }
        }
        GeneratorKind::Reduction => {
            let out = plan.item.output.unwrap_or(ElemType::Generic);
            let out_ty = dtype_tokens(out.with(inst.dtype), rt);
            let first = stub(0);
            let last = stub(1);
            let scalars: Vec<&Ident> = plan
                .item
                .params
                .iter()
                .filter(|p| p.access == Access::Scalar)
                .map(|p| &p.name)
                .collect();
            quote! {
                #n
                #rt::__private::check_output(#label, "out", #rt::__private::SliceLen::slice_len(&out))?;
                let (__first, __last, __count) = #rt::__private::reduction_launches(__n, #width);
                let mut __partials = #rt::__private::scratch::<#out_ty>(#m.stream(), __count)?;
                // SAFETY: the inputs hold `n` elements (checked), read at `[i]`, `i < n`, or the
                // launcher is `unsafe`; the partials hold one value per block of the first
                // launch; `out` holds at least one value.
                unsafe {
                    #m.#first(&__first, #(#all,)* &mut __partials, __n as i64)?;
                    #m.#last(&__last, #(#scalars,)* &__partials, __count as i32, out, __n as i64)
                }
            }
        }
        GeneratorKind::Scan => {
            let s = stub(0);
            let dtype = plan.item.params[0].elem.with(inst.dtype);
            let dtype = format_ident!("{dtype:?}");
            quote! {
                #n
                if __n == 0 {
                    return ::core::result::Result::Ok(());
                }
                let __cfg = #rt::__private::scan_launch(__n, #rt::__private::Dtype::#dtype)?;
                let mut __scratch = #rt::__private::scan_scratch(#m.stream(), __n, #rt::__private::Dtype::#dtype)?;
                // SAFETY: input and output hold `n` elements (checked); the scratch is sized
                // for the tiles of `n` elements, its counter and flags zeroed.
                unsafe { #m.#s(&__cfg, #(#all,)* &mut __scratch, __n as i64) }
            }
        }
    }
}

/// The rustdoc of a launcher: what it computes, its types, its errors, its safety.
fn docs(plan: &FnPlan<'_>) -> TokenStream {
    let item = plan.item;
    let mut lines: Vec<String> = Vec::new();
    if item.attrs.iter().any(|a| a.path().is_ident("doc")) {
        lines.push(String::new());
    }
    let text = |key: &str| item.field(key).map(|l| l.value()).unwrap_or_default();
    match (&item.body, plan.kind) {
        (Body::Statement(lit), _) => {
            lines.push(format!(
                " Generated elementwise kernel: for every `i < n`, `{}`.",
                lit.value().trim()
            ));
        }
        (_, GeneratorKind::Reduction) => {
            lines.push(format!(
                " Generated reduction: `{}` over `i < n`, combined by `{}` from `{}`{}.",
                text("map"),
                text("reduce"),
                text("identity"),
                item.field("post")
                    .map(|p| format!(", then `{}` of the result `r`", p.value()))
                    .unwrap_or_default()
            ));
            lines.push(String::new());
            lines.push(
                " Two launches on a grid that depends on `n` alone: the result is the same bits on every run and every GPU. Waits for the result; `_into` leaves it on the device."
                    .into(),
            );
        }
        _ => {
            lines.push(format!(
                " Generated {} scan with `{}` (identity `{}`), in one pass (decoupled look-back).",
                if item.flag("exclusive") {
                    "exclusive"
                } else {
                    "inclusive"
                },
                text("op"),
                text("identity")
            ));
        }
    }
    if let Some((t, types)) = &item.generic {
        lines.push(String::new());
        lines.push(format!(
            " `{t}` is one of {}.",
            types
                .iter()
                .map(|(d, _)| format!("`{}`", d.rust_name()))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    lines.push(String::new());
    lines.push(" # Errors".into());
    lines.push(String::new());
    lines.push(
        " [`Error::SliceLength`](::cuda_kernel_runtime::Error::SliceLength) when the slices differ in length; a driver error."
            .into(),
    );
    if let Some(reason) = unsafe_reason(plan) {
        lines.push(String::new());
        lines.push(" # Safety".into());
        lines.push(String::new());
        lines.push(format!(
            " The generator cannot tell that the kernel stays within its slices: {reason}. The caller vouches that it does for these arguments."
        ));
    }
    quote!(#(#[doc = #lines])*)
}

/// The rustdoc of a reduction's `_into` launcher.
fn into_doc(plan: &FnPlan<'_>) -> TokenStream {
    let line = format!(
        " [`Module::{}`], leaving the result in `out[0]` on the device (no wait).",
        plan.item.name
    );
    quote!(#[doc = #line])
}

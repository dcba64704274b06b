//! The check of Rust kernel declarations against the CUDA declarations.
//!
//! A `cuda_module!` may state what the crate relies on:
//!
//! ```text
//! fn saxpy(a: f32, x: &[f32], y: &mut [f32], n: i32);
//! fn axpy<T>(a: T, x: &[T], y: &mut [T], n: i32);   // every instantiation of template `axpy`
//! ```
//!
//! Each declaration must name a kernel of the source and agree with it in the number
//! and order of parameters, each type, the const-ness of each pointer (`&[T]`,
//! `In<T>`, `*const T` for `const T*`; `&mut [T]`, `Out<T>`, `InOut<T>`, `*mut T`
//! for `T*`) and the identity of each struct. Every mismatch is reported, at the
//! span of the Rust type, with the CUDA file and line; nothing stops at the first.

mod compare;
mod host;
mod rust_type;

use std::collections::HashMap;

use crate::diagnostics::check as msg;
use crate::model::rust::{enum_param, kernel_rust_name, rust_ident};
use crate::model::{CType, EnumDef, Kernel, ModuleInfo, TemplateArg};
use compare::{Mismatch, compare, expected_rust, type_text};
use rust_type::classify;

pub use host::check_host_declarations;

/// Checks every declaration; the error combines every mismatch found.
pub fn check_declarations(info: &ModuleInfo, decls: &[syn::Signature]) -> Result<(), syn::Error> {
    let mut errors = Vec::new();
    for sig in decls {
        check_one(info, sig, &mut errors);
    }
    let mut iter = errors.into_iter();
    match iter.next() {
        None => Ok(()),
        Some(mut first) => {
            first.extend(iter);
            Err(first)
        }
    }
}

fn check_one(info: &ModuleInfo, sig: &syn::Signature, errors: &mut Vec<syn::Error>) {
    let name = sig.ident.to_string().trim_start_matches("r#").to_owned();
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        errors.push(spanned(ty, &msg::returns_value(&name)));
    }
    let structs: Vec<String> = info.structs.iter().map(|s| s.name.clone()).collect();
    let structs = Known {
        structs: &structs,
        enums: &info.enums,
    };
    let candidates: Vec<&Kernel> = info
        .kernels
        .iter()
        .filter(|k| kernel_rust_name(k) == name)
        .collect();
    if candidates.is_empty() {
        let mut available: Vec<String> = info.kernels.iter().map(kernel_rust_name).collect();
        available.dedup();
        errors.push(msg::kernel_not_found(&name, &available).to_syn_error(sig.ident.span()));
        return;
    }
    let type_params: Vec<String> = sig
        .generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect();
    if type_params.is_empty() {
        let plain: Vec<&Kernel> = candidates
            .iter()
            .copied()
            .filter(|k| k.template_args.is_empty())
            .collect();
        let Some(first) = plain.first() else {
            let d =
                msg::generics_mismatch(&name, 0, &candidates[0].name).at(candidates[0].loc.clone());
            errors.push(d.to_syn_error(sig.ident.span()));
            return;
        };
        // Overloads: the declaration must match one of them; report against the first.
        if plain
            .iter()
            .any(|k| params_errors(&structs, k, sig, &HashMap::new()).is_empty())
        {
            return;
        }
        errors.extend(params_errors(&structs, first, sig, &HashMap::new()));
        return;
    }
    for kernel in candidates {
        let types: Option<Vec<&CType>> = kernel
            .template_args
            .iter()
            .map(|a| match a {
                TemplateArg::Type(t) => Some(t),
                TemplateArg::Value(_) => None,
            })
            .collect();
        match types {
            Some(types) if types.len() == type_params.len() => {
                let subst = type_params
                    .iter()
                    .cloned()
                    .zip(types.into_iter().cloned())
                    .collect();
                errors.extend(params_errors(&structs, kernel, sig, &subst));
            }
            _ => {
                let d = msg::generics_mismatch(&name, type_params.len(), &kernel.name)
                    .at(kernel.loc.clone());
                errors.push(spanned(&sig.generics, &d));
            }
        }
    }
}

/// Every mismatch between `kernel`'s parameters and the declaration's.
/// The module's types a declaration may name.
struct Known<'a> {
    structs: &'a [String],
    enums: &'a [EnumDef],
}

fn params_errors(
    known_types: &Known<'_>,
    kernel: &Kernel,
    sig: &syn::Signature,
    subst: &HashMap<String, CType>,
) -> Vec<syn::Error> {
    let rust: Vec<(Option<String>, &syn::Type)> = sig
        .inputs
        .iter()
        .map(|arg| match arg {
            syn::FnArg::Typed(t) => {
                let name = match t.pat.as_ref() {
                    syn::Pat::Ident(i) => Some(i.ident.to_string()),
                    _ => None,
                };
                (name, t.ty.as_ref())
            }
            syn::FnArg::Receiver(r) => (Some("self".into()), r.ty.as_ref()),
        })
        .collect();
    if rust.len() != kernel.params.len() {
        let d =
            msg::param_count(&kernel.name, kernel.params.len(), rust.len()).at(kernel.loc.clone());
        return vec![if sig.inputs.is_empty() {
            d.to_syn_error(sig.ident.span())
        } else {
            spanned(&sig.inputs, &d)
        }];
    }
    let mut errors = Vec::new();
    for (i, (param, (rname, ty))) in kernel.params.iter().zip(rust).enumerate() {
        let pname = param
            .name
            .clone()
            .or(rname)
            .unwrap_or_else(|| format!("arg{i}"));
        let loc = param.loc.clone().or_else(|| kernel.loc.clone());
        let rust_text = type_text(ty);
        // A parameter of an enumeration takes the Rust enum.
        if let Some(e) = enum_param(&param.ty, &param.written, known_types.enums) {
            let rust_name = rust_ident(&e.name).to_string();
            let names_it = matches!(classify(ty), rust_type::RustType::Named(ref n)
                if *n == rust_name || Some(n.as_str()) == e.name.rsplit("::").next());
            if !names_it {
                let d = msg::type_mismatch(
                    &kernel.name,
                    &pname,
                    &rust_text,
                    &param.written,
                    &rust_name,
                );
                errors.push(spanned(ty, &d.at(loc)));
            }
            continue;
        }
        let known = |n: &str| {
            subst.contains_key(n)
                || known_types.structs.iter().any(|s| {
                    s == n || s.rsplit("::").next() == Some(n) || s.replace("::", "_") == n
                })
        };
        let d = match compare(&classify(ty), &param.ty, subst, &known) {
            Ok(()) => continue,
            Err(Mismatch::Type) => msg::type_mismatch(
                &kernel.name,
                &pname,
                &rust_text,
                &param.written,
                &expected_rust(&param.ty),
            ),
            Err(Mismatch::Const) => msg::const_mismatch(
                &kernel.name,
                &pname,
                &rust_text,
                &param.written,
                &expected_rust(&param.ty),
            ),
            Err(Mismatch::Struct(s)) => msg::struct_mismatch(&kernel.name, &pname, &rust_text, &s),
            Err(Mismatch::Unsupported) => {
                msg::unsupported_rust_type(&kernel.name, &pname, &rust_text)
            }
        };
        errors.push(spanned(ty, &d.at(loc)));
    }
    errors
}

/// The diagnostic as an error covering all of `tokens` (the span of the first
/// token alone would underline only the `&` of `&mut [f32]` on stable Rust).
fn spanned(tokens: &dyn quote::ToTokens, d: &crate::diagnostics::Diagnostic) -> syn::Error {
    let text = d.to_syn_error(proc_macro2::Span::call_site()).to_string();
    syn::Error::new_spanned(tokens, text)
}

#[cfg(test)]
mod tests;

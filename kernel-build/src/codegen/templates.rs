//! Which stub each kernel gets: one plain method, or one generic method per
//! template family (`axpy::<f32>` reaches `axpy<float>`).
//!
//! A template family becomes a generic method when every instantiation has only
//! type arguments, the same number of parameters and the same way of passing each
//! (by value, `const T*`, `T*`), and no two instantiations map to the same Rust
//! types (`long` and `long long` both being `i64`). The type argument of the
//! method is the Rust type of the template argument, or a tuple of them for
//! several. A hidden trait implemented for each key carries the kernel index and
//! the parameter types that vary. Families that do not fit, and C++ overloads, get
//! one method per kernel named `<name>_<arguments>` (`scale_f32_4`).

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::metadata::launchable;
use super::names::{kernel_rust_name, rust_ident};
use super::types::{ParamKind, param_kind, value_tokens};
use crate::front::rust_type::{scalar_name, vector_name};
use crate::model::{CType, Kernel, ModuleInfo, TemplateArg};

/// Methods of the handle type that kernels must not shadow.
const RESERVED: &[&str] = &["with_stream", "stream"];

/// One kernel of a family, with its index in the spec.
pub(crate) struct Member<'a> {
    pub index: usize,
    pub kernel: &'a Kernel,
    /// The Rust type that selects it (`f32`, `(f32, i32)`).
    pub key: TokenStream,
}

/// What one generated method covers.
pub(crate) enum Planned<'a> {
    /// One kernel, one method.
    Single {
        name: Ident,
        index: usize,
        kernel: &'a Kernel,
    },
    /// A template family, one generic method.
    Family {
        name: Ident,
        members: Vec<Member<'a>>,
    },
}

/// Plans the methods of a module, in source order of first appearance.
pub(crate) fn plan<'a>(info: &'a ModuleInfo, rt: &TokenStream) -> Vec<Planned<'a>> {
    let mut groups: Vec<(String, Vec<(usize, &'a Kernel)>)> = Vec::new();
    for (index, kernel) in launchable(info).enumerate() {
        let mut name = kernel_rust_name(kernel);
        if RESERVED.contains(&name.as_str()) {
            name.push_str("_kernel");
        }
        match groups.iter_mut().find(|(n, _)| *n == name) {
            Some((_, members)) => members.push((index, kernel)),
            None => groups.push((name, vec![(index, kernel)])),
        }
    }
    let mut planned = Vec::new();
    let mut taken: BTreeSet<String> = groups.iter().map(|(n, _)| n.clone()).collect();
    for (name, members) in groups {
        let single = match members[..] {
            [(index, kernel)] if kernel.template_args.is_empty() => Some((index, kernel)),
            _ => None,
        };
        if let Some((index, kernel)) = single {
            planned.push(Planned::Single {
                name: rust_ident(&name),
                index,
                kernel,
            });
        } else if let Some(members) = family(&members, rt) {
            planned.push(Planned::Family {
                name: rust_ident(&name),
                members,
            });
        } else {
            for (ordinal, (index, kernel)) in members.into_iter().enumerate() {
                let mut single = format!("{name}_{}", suffix(kernel, ordinal));
                while !taken.insert(single.clone()) {
                    single.push('_');
                }
                planned.push(Planned::Single {
                    name: rust_ident(&single),
                    index,
                    kernel,
                });
            }
        }
    }
    planned
}

/// The members of a family that fits a generic method, or `None`.
fn family<'a>(members: &[(usize, &'a Kernel)], rt: &TokenStream) -> Option<Vec<Member<'a>>> {
    let first = members.first()?.1;
    let mut keys = BTreeSet::new();
    let mut out = Vec::new();
    for &(index, kernel) in members {
        if kernel.template_args.is_empty() || kernel.params.len() != first.params.len() {
            return None;
        }
        let shapes_match = kernel
            .params
            .iter()
            .zip(&first.params)
            .all(|(a, b)| shape(&param_kind(&a.ty, rt)) == shape(&param_kind(&b.ty, rt)));
        if !shapes_match {
            return None;
        }
        let types = kernel
            .template_args
            .iter()
            .map(|a| match a {
                TemplateArg::Type(t) => Some(value_tokens(t, rt)),
                TemplateArg::Value(_) => None,
            })
            .collect::<Option<Vec<_>>>()?;
        let key = match &types[..] {
            [one] => one.clone(),
            many => quote!((#(#many),*)),
        };
        if !keys.insert(key.to_string()) {
            return None;
        }
        out.push(Member { index, kernel, key });
    }
    Some(out)
}

/// 0 = by value, 1 = `const T*`, 2 = `T*`.
pub(crate) fn shape(kind: &ParamKind) -> u8 {
    match kind {
        ParamKind::Value(_) => 0,
        ParamKind::ConstPtr(_) => 1,
        ParamKind::MutPtr(_) => 2,
    }
}

/// `f32_4` for `<float, 4>`; the ordinal for a non-template overload.
fn suffix(kernel: &Kernel, ordinal: usize) -> String {
    if kernel.template_args.is_empty() {
        return ordinal.to_string();
    }
    let parts: Vec<String> = kernel
        .template_args
        .iter()
        .map(|a| match a {
            TemplateArg::Type(t) => type_word(t),
            TemplateArg::Value(v) => v.replace('-', "m"),
        })
        .collect();
    rust_ident(&parts.join("_"))
        .to_string()
        .trim_start_matches("r#")
        .to_owned()
}

/// A word for a type in a method name (`f32`, `Float2`, `P`, `ptr`).
fn type_word(ty: &CType) -> String {
    match ty {
        CType::Scalar(s) => scalar_name(*s).to_owned(),
        CType::Vector { elem, lanes } => vector_name(*elem, *lanes),
        CType::Struct(name) => name.replace("::", "_"),
        CType::Array { elem, len } => format!("{}x{len}", type_word(elem)),
        CType::Pointer { .. } => "ptr".to_owned(),
        CType::Void => "void".to_owned(),
    }
}

/// The name of the associated type for parameter `i` of a family.
pub(crate) fn assoc_ident(i: usize) -> Ident {
    format_ident!("P{}", i)
}

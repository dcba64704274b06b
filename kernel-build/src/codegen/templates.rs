//! Which stub each kernel gets: one plain method, or one generic method per
//! template family (`axpy::<f32>` reaches `axpy<float>`).
//!
//! A template family becomes a generic method when every instantiation has only
//! type arguments, the same number of parameters and the same way of passing each
//! (by value, `const T*`, `T*`), and no two instantiations map to the same Rust
//! types (`long` and `long long` both being `i64`). The type argument of the
//! method is the Rust type of the template argument, or a tuple of them for
//! several. A public trait in the module's `templates` submodule (`Axpby` for
//! `axpby`), implemented for each key, carries the kernel index and the parameter
//! types that vary, named after the CUDA parameters, so users can bound their own
//! generic code by it. Families that do not fit, and C++ overloads, get
//! one method per kernel named `<name>_<arguments>` (`scale_f32_4`).

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::names::{assoc_idents, kernel_rust_name, rust_ident, trait_ident};
use super::types::{ParamKind, param_kind, value_tokens};
use crate::front::rust_type::{scalar_name, vector_name};
use crate::model::{CType, Kernel, ModuleInfo, TemplateArg};

/// Methods of the handle type that kernels must not shadow.
const RESERVED: &[&str] = &["with_stream", "stream", "has_kernel", "by_name"];

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
        /// The public trait its instantiations implement (`templates::Axpby`).
        trait_name: Ident,
        members: Vec<Member<'a>>,
        /// Per parameter, the trait's associated type for it: `None` where the parameter's
        /// Rust type is the same in every instantiation.
        assoc: Vec<Option<Ident>>,
    },
}

/// Plans the methods of a module, in source order of first appearance.
pub(crate) fn plan<'a>(info: &'a ModuleInfo, rt: &TokenStream) -> Vec<Planned<'a>> {
    let mut groups: Vec<(String, Vec<(usize, &'a Kernel)>)> = Vec::new();
    for (index, kernel) in info.kernels.iter().enumerate() {
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
    let families: Vec<String> = groups
        .iter()
        .filter(|(_, members)| lone(members).is_none())
        .map(|(n, _)| n.clone())
        .collect();
    for (name, members) in groups {
        if let Some((index, kernel)) = lone(&members) {
            planned.push(Planned::Single {
                name: rust_ident(&name),
                index,
                kernel,
            });
        } else if let Some(members) = family(&members, rt) {
            planned.push(Planned::Family {
                trait_name: trait_ident(&name, info, &families),
                name: rust_ident(&name),
                assoc: assoc_idents(members[0].kernel, &varying(&members, rt)),
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

/// The one kernel of a group that is neither a template nor an overload.
fn lone<'a>(members: &[(usize, &'a Kernel)]) -> Option<(usize, &'a Kernel)> {
    match members {
        [(index, kernel)] if kernel.template_args.is_empty() => Some((*index, *kernel)),
        _ => None,
    }
}

/// Positions whose Rust type differs between the members of a family.
fn varying(members: &[Member<'_>], rt: &TokenStream) -> Vec<bool> {
    let first = members[0].kernel;
    (0..first.params.len())
        .map(|i| {
            let t0 = kind_type(param_kind(&first.params[i].ty, rt)).to_string();
            members
                .iter()
                .any(|m| kind_type(param_kind(&m.kernel.params[i].ty, rt)).to_string() != t0)
        })
        .collect()
}

/// The Rust type a parameter kind is about (the value's, or the pointee's).
pub(crate) fn kind_type(kind: ParamKind) -> TokenStream {
    match kind {
        ParamKind::Value(t) | ParamKind::ConstPtr(t) | ParamKind::MutPtr(t) => t,
        ParamKind::Object { handle, .. } => handle,
    }
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

/// 0 = by value, 1 = `const T*`, 2 = `T*`, 3 = a texture or surface object.
pub(crate) fn shape(kind: &ParamKind) -> u8 {
    match kind {
        ParamKind::Value(_) => 0,
        ParamKind::ConstPtr(_) => 1,
        ParamKind::MutPtr(_) => 2,
        ParamKind::Object { .. } => 3,
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
            // `(Op)2` → `Op_2`, `(cfg::Mode)4` → `cfg_Mode_4`, `-3` → `m3`.
            TemplateArg::Value(v) => v
                .replace('-', "m")
                .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join("_"),
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

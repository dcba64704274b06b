//! Which launch method each kernel gets: one plain method, or one generic method per
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
//!
//! The plan is made once per module ([`plan`]); codegen writes the methods, the traits and
//! the argument bounds from it, and the build checks the kernel names its options give
//! against [`method_names`].

use std::collections::BTreeSet;

use proc_macro2::Ident;

use super::names::{assoc_idents, kernel_rust_name, rust_ident, trait_ident};
use super::types::{RustType, passing, stored, suffix};
use crate::model::{Kernel, ModuleInfo, TemplateArg};

/// Methods of the handle type that kernels must not shadow.
const RESERVED: &[&str] = &["with_stream", "stream", "has_kernel", "by_name"];

/// One kernel of a family, with its index in the spec.
#[derive(Clone, Debug)]
pub struct Member<'a> {
    /// The kernel's index among the module's kernels.
    pub index: usize,
    /// The kernel.
    pub kernel: &'a Kernel,
    /// The Rust types of its template arguments, which select it (`f32`; `(f32, i32)` for
    /// several).
    pub key: Vec<RustType>,
}

/// What one generated method covers.
#[derive(Clone, Debug)]
pub enum Planned<'a> {
    /// One kernel, one method.
    Single {
        /// The method's name.
        name: Ident,
        /// The kernel's index among the module's kernels.
        index: usize,
        /// The kernel.
        kernel: &'a Kernel,
    },
    /// A template family, one generic method.
    Family {
        /// The method's name.
        name: Ident,
        /// The public trait its instantiations implement (`templates::Axpby`).
        trait_name: Ident,
        /// The instantiations.
        members: Vec<Member<'a>>,
        /// Per parameter, the trait's associated type for it: `None` where the parameter's
        /// Rust type is the same in every instantiation.
        assoc: Vec<Option<Ident>>,
    },
}

impl Planned<'_> {
    /// The method's name.
    pub fn name(&self) -> &Ident {
        match self {
            Planned::Single { name, .. } | Planned::Family { name, .. } => name,
        }
    }
}

/// Plans the methods of a module, in source order of first appearance.
pub fn plan(info: &ModuleInfo) -> Vec<Planned<'_>> {
    let mut groups: Vec<(String, Vec<(usize, &Kernel)>)> = Vec::new();
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
        } else if let Some(members) = family(&members) {
            planned.push(Planned::Family {
                trait_name: trait_ident(&name, info, &families),
                name: rust_ident(&name),
                assoc: assoc_idents(members[0].kernel, &varying(&members)),
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

/// The Rust names a module's kernels go by: each kernel's (a template family's) name,
/// and the names of the methods it gets.
pub fn method_names(info: &ModuleInfo) -> Vec<String> {
    let mut names: BTreeSet<String> = info.kernels.iter().map(kernel_rust_name).collect();
    names.extend(plan(info).iter().map(|p| p.name().to_string()));
    names.into_iter().collect()
}

/// The one kernel of a group that is neither a template nor an overload.
fn lone<'a>(members: &[(usize, &'a Kernel)]) -> Option<(usize, &'a Kernel)> {
    match members {
        [(index, kernel)] if kernel.template_args.is_empty() => Some((*index, *kernel)),
        _ => None,
    }
}

/// Positions whose Rust type differs between the members of a family.
fn varying(members: &[Member<'_>]) -> Vec<bool> {
    let first = members[0].kernel;
    (0..first.params.len())
        .map(|i| {
            let t0 = passing(&first.params[i].ty).rust_type();
            members
                .iter()
                .any(|m| passing(&m.kernel.params[i].ty).rust_type() != t0)
        })
        .collect()
}

/// The members of a family that fits a generic method, or `None`.
fn family<'a>(members: &[(usize, &'a Kernel)]) -> Option<Vec<Member<'a>>> {
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
            .all(|(a, b)| passing(&a.ty).shape() == passing(&b.ty).shape());
        if !shapes_match {
            return None;
        }
        let key = kernel
            .template_args
            .iter()
            .map(|a| match a {
                TemplateArg::Type(t) => Some(stored(t)),
                TemplateArg::Value(_) => None,
            })
            .collect::<Option<Vec<_>>>()?;
        if !keys.insert(format!("{key:?}")) {
            return None;
        }
        out.push(Member { index, kernel, key });
    }
    Some(out)
}

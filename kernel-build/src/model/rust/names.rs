//! How CUDA names become Rust identifiers.
//!
//! One function per kind of name, so the stub, the metadata and the declaration
//! check agree:
//!
//! | CUDA | Rust |
//! |---|---|
//! | kernel `saxpy` | method `saxpy` |
//! | kernel `ns::inner::k` | method `ns_inner_k` |
//! | template `axpy<float>` | generic method `axpy::<f32>` (see `plan`) |
//! | template family `axpby` | trait `templates::Axpby` |
//! | varying template parameter `x` | associated type `X` |
//! | struct `geo::Pt` | struct `geo_Pt` |
//! | class template instance `interval<float>` | struct `interval_float` |
//! | global `coeffs` | method `coeffs` |
//! | a Rust keyword (`type`, `match`) | raw identifier (`r#type`) |
//! | `self`, `Self`, `super`, `crate` | with a trailing underscore (`self_`) |

use std::collections::BTreeSet;

use heck::ToUpperCamelCase;
use proc_macro2::{Ident, Span};
use quote::format_ident;

use crate::model::{Kernel, ModuleInfo};

/// Turns a C identifier (or `::`-qualified name) into a Rust identifier.
pub fn rust_ident(c_name: &str) -> Ident {
    let joined = c_name.replace("::", "_");
    let name: String = if joined.contains('<') {
        // A class template's instance (`pair<const float*, 4>` → `pair_const_float_4`):
        // each run of punctuation is one `_`, none at the end.
        let mut out = String::new();
        for c in c_name.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                out.push(c);
            } else if !out.ends_with('_') {
                out.push('_');
            }
        }
        out.trim_end_matches('_').to_owned()
    } else {
        joined
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    let name = if name.len() > LONGEST {
        shortened(c_name)
    } else {
        name
    };
    let name = match name.chars().next() {
        None => "_".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("_{name}"),
        Some(_) => name,
    };
    if matches!(name.as_str(), "self" | "Self" | "super" | "crate" | "_") {
        return Ident::new(&format!("{name}_"), Span::call_site());
    }
    if syn::parse_str::<Ident>(&name).is_ok() {
        Ident::new(&name, Span::call_site())
    } else {
        Ident::new_raw(&name, Span::call_site())
    }
}

/// The longest identifier made from a C++ name word for word; longer ones (the instances
/// of a library's deeply nested templates) are [`shortened`].
const LONGEST: usize = 64;

/// A C++ name too long to spell word for word: its names outside template arguments
/// (`cutlass::gemm::kernel::GemmUniversal<...>::Params` → `cutlass_gemm_kernel_GemmUniversal_Params`,
/// the last 48 characters of that at most) and 8 hex digits of a hash of the whole name,
/// so that two instances stay two types.
fn shortened(c_name: &str) -> String {
    let mut outside = String::new();
    let mut depth = 0i32;
    for c in c_name.chars() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            _ if depth == 0 => {
                if c.is_ascii_alphanumeric() || c == '_' {
                    outside.push(c);
                } else if !outside.ends_with('_') {
                    outside.push('_');
                }
            }
            _ => {}
        }
    }
    let outside = outside.trim_matches('_');
    let tail = &outside[outside.len().saturating_sub(48)..];
    let tail = tail.trim_start_matches(|c: char| c == '_' || c.is_ascii_digit());
    let hash = blake3::hash(c_name.as_bytes()).to_hex();
    format!("{tail}_{}", &hash[..8])
}

/// The Rust name of a kernel family: its namespaces and base name joined by `_`
/// (template arguments are not part of it).
pub fn kernel_rust_name(kernel: &Kernel) -> String {
    let mut parts = kernel.namespace.clone();
    parts.push(kernel.base_name.clone());
    rust_ident(&parts.join("::")).to_string()
}

/// A parameter's Rust name: the CUDA name, or `arg<i>` when unnamed.
pub fn param_ident(name: Option<&str>, index: usize) -> Ident {
    match name {
        Some(n) if !n.is_empty() => rust_ident(n),
        _ => Ident::new(&format!("arg{index}"), Span::call_site()),
    }
}

/// The associated-type names of a family's parameters, `None` where the parameter does not
/// vary between instantiations.
///
/// Each is the CUDA parameter's name in UpperCamelCase (`x` → `X`, `in_ptr` → `InPtr`). When
/// one varying parameter is unnamed, or two names collide, or a name is not a plain
/// identifier, every one is positional instead (`P0`, `P1`, ...): either rule gives the
/// user a name that is stable for a given declaration.
pub(crate) fn assoc_idents(kernel: &Kernel, varying: &[bool]) -> Vec<Option<Ident>> {
    let named: Option<Vec<Option<String>>> = varying
        .iter()
        .zip(&kernel.params)
        .map(|(&varies, p)| match (varies, p.name.as_deref()) {
            (false, _) => Some(None),
            (true, Some(name)) => Some(Some(name.to_upper_camel_case())),
            (true, None) => None,
        })
        .collect();
    let usable = named.as_ref().is_some_and(|names| {
        let mut seen = BTreeSet::new();
        names
            .iter()
            .flatten()
            .all(|n| is_plain_type_ident(n) && seen.insert(n.clone()))
    });
    match named {
        Some(names) if usable => names
            .into_iter()
            .map(|n| n.map(|n| format_ident!("{}", n)))
            .collect(),
        _ => varying
            .iter()
            .enumerate()
            .map(|(i, &varies)| varies.then(|| format_ident!("P{}", i)))
            .collect(),
    }
}

/// The name of the public trait of a template family: the method's name in UpperCamelCase
/// (`axpby` → `Axpby`), or the method's own name where that would clash with another
/// family's trait or a struct of the module.
pub(crate) fn trait_ident(method: &str, info: &ModuleInfo, families: &[String]) -> Ident {
    let camel = method.to_upper_camel_case();
    let clashes = families
        .iter()
        .filter(|f| f.to_upper_camel_case() == camel)
        .count()
        > 1
        || info.structs.iter().any(|s| s.name == camel);
    if clashes || !is_plain_type_ident(&camel) {
        rust_ident(method)
    } else {
        format_ident!("{}", camel)
    }
}

/// An identifier usable as a type name without escaping (`Self` and keywords are not).
fn is_plain_type_ident(name: &str) -> bool {
    name != "Self" && syn::parse_str::<Ident>(name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_and_symbols_become_valid_idents() {
        assert_eq!(rust_ident("3d").to_string(), "_3d");
        assert_eq!(rust_ident("a<b>").to_string(), "a_b");
        assert_eq!(
            rust_ident("v<const float*, 4>").to_string(),
            "v_const_float_4"
        );
        assert_eq!(rust_ident("").to_string(), "__");
        assert_eq!(rust_ident("match").to_string(), "r#match");
    }

    #[test]
    fn c_names_become_rust_idents() {
        assert_eq!(rust_ident("saxpy").to_string(), "saxpy");
        assert_eq!(rust_ident("geo::Pt").to_string(), "geo_Pt");
        assert_eq!(rust_ident("type").to_string(), "r#type");
        assert_eq!(rust_ident("self").to_string(), "self_");
        assert_eq!(
            rust_ident("std::integral_constant<bool, true>").to_string(),
            "std_integral_constant_bool_true"
        );
        // Longer than 64 characters: the names outside template arguments and a hash.
        let long = "lib::gemm::Kernel<lib::gemm::Tile<128, 256, 64>, lib::epilogue::Linear<float, 8>>::Params";
        let id = rust_ident(long).to_string();
        assert!(
            id.starts_with("lib_gemm_Kernel_Params_") && id.len() == 31,
            "{id}"
        );
    }

    #[test]
    fn a_kernel_is_named_by_its_namespaces_and_base_name() {
        use crate::model::{KernelAttrs, Linkage};
        let k = Kernel {
            name: "ops::axpy<float>".into(),
            base_name: "axpy".into(),
            namespace: vec!["ops".into()],
            template_args: vec![],
            symbol: "_ZN3ops4axpyIfEEvT_PKS1_PS1_i".into(),
            linkage: Linkage::Cxx,
            is_static: false,
            params: vec![],
            attrs: KernelAttrs::default(),
            doc: None,
            loc: None,
            images: vec![],
        };
        assert_eq!(kernel_rust_name(&k), "ops_axpy");
    }

    #[test]
    fn unnamed_parameters_are_numbered() {
        assert_eq!(param_ident(Some("x"), 0).to_string(), "x");
        assert_eq!(param_ident(None, 2).to_string(), "arg2");
    }
}

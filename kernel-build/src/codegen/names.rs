//! How CUDA names become Rust identifiers.
//!
//! One function per kind of name, so the stub, the metadata and the declaration
//! check agree:
//!
//! | CUDA | Rust |
//! |---|---|
//! | kernel `saxpy` | method `saxpy` |
//! | kernel `ns::inner::k` | method `ns_inner_k` |
//! | template `axpy<float>` | generic method `axpy::<f32>` (see `templates`) |
//! | struct `geo::Pt` | struct `geo_Pt` |
//! | global `coeffs` | method `coeffs` |
//! | a Rust keyword (`type`, `match`) | raw identifier (`r#type`) |
//! | `self`, `Self`, `super`, `crate` | with a trailing underscore (`self_`) |

use proc_macro2::{Ident, Span};

use crate::model::Kernel;

/// Turns a C identifier (or `::`-qualified name) into a Rust identifier.
///
/// ```
/// use kernel_build::codegen::rust_ident;
/// assert_eq!(rust_ident("saxpy").to_string(), "saxpy");
/// assert_eq!(rust_ident("geo::Pt").to_string(), "geo_Pt");
/// assert_eq!(rust_ident("type").to_string(), "r#type");
/// assert_eq!(rust_ident("self").to_string(), "self_");
/// ```
pub fn rust_ident(c_name: &str) -> Ident {
    let joined = c_name.replace("::", "_");
    let name: String = joined
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
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

/// The Rust name of a kernel family: its namespaces and base name joined by `_`
/// (template arguments are not part of it).
///
/// ```
/// use kernel_build::codegen::kernel_rust_name;
/// use kernel_build::model::{Kernel, KernelAttrs, Linkage};
/// let k = Kernel {
///     name: "ops::axpy<float>".into(), base_name: "axpy".into(), namespace: vec!["ops".into()],
///     template_args: vec![], symbol: "_ZN3ops4axpyIfEEvT_PKS1_PS1_i".into(), linkage: Linkage::Cxx,
///     is_static: false, params: vec![], attrs: KernelAttrs::default(), doc: None, loc: None, images: vec![],
/// };
/// assert_eq!(kernel_rust_name(&k), "ops_axpy");
/// ```
pub fn kernel_rust_name(kernel: &Kernel) -> String {
    let mut parts = kernel.namespace.clone();
    parts.push(kernel.base_name.clone());
    rust_ident(&parts.join("::")).to_string()
}

/// A parameter's Rust name: the CUDA name, or `arg<i>` when unnamed.
///
/// ```
/// assert_eq!(kernel_build::codegen::param_ident(Some("x"), 0).to_string(), "x");
/// assert_eq!(kernel_build::codegen::param_ident(None, 2).to_string(), "arg2");
/// ```
pub fn param_ident(name: Option<&str>, index: usize) -> Ident {
    match name {
        Some(n) if !n.is_empty() => rust_ident(n),
        _ => Ident::new(&format!("arg{index}"), Span::call_site()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_and_symbols_become_valid_idents() {
        assert_eq!(rust_ident("3d").to_string(), "_3d");
        assert_eq!(rust_ident("a<b>").to_string(), "a_b_");
        assert_eq!(rust_ident("").to_string(), "__");
        assert_eq!(rust_ident("match").to_string(), "r#match");
    }
}

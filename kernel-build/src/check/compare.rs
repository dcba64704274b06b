//! Comparison of one Rust parameter type with one C parameter type.

use std::collections::HashMap;

use super::rust_type::RustType;
use crate::model::CType;
use crate::model::rust::rust_ident;

/// Why a Rust type does not fit a C type.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Mismatch {
    /// A different type.
    Type,
    /// The right element type behind a pointer of the wrong const-ness.
    Const,
    /// A name that is not the CUDA struct's (carries the CUDA name).
    Struct(String),
    /// A Rust type no kernel parameter can have.
    Unsupported,
}

/// Compares `rust` with `c`; `subst` maps the declaration's type parameters to the
/// template arguments of the instantiation being checked; `known` says whether a
/// name is a struct of the module or a type parameter (any other name is only
/// acceptable where a struct is expected, where it is the wrong struct).
pub(crate) fn compare(
    rust: &RustType,
    c: &CType,
    subst: &HashMap<String, CType>,
    known: &dyn Fn(&str) -> bool,
) -> Result<(), Mismatch> {
    match (rust, c) {
        (RustType::Unsupported, _) => Err(Mismatch::Unsupported),
        (RustType::Named(n), _) if !known(n) && !matches!(c, CType::Struct(_)) => {
            Err(Mismatch::Unsupported)
        }
        (RustType::Named(n), _) if subst.contains_key(n) => {
            if &subst[n] == c {
                Ok(())
            } else {
                Err(Mismatch::Type)
            }
        }
        (RustType::Scalar(a), CType::Scalar(b)) if a == b => Ok(()),
        (RustType::Vector(a, n), CType::Vector { elem, lanes }) if a == elem && n == lanes => {
            Ok(())
        }
        (RustType::Named(n), CType::Struct(s)) => {
            let short = s.rsplit("::").next().unwrap_or(s);
            if n == s || n == short || rust_ident(s) == n {
                Ok(())
            } else {
                Err(Mismatch::Struct(s.clone()))
            }
        }
        (RustType::Raw, CType::Pointer { pointee, .. }) if untyped(pointee) => Ok(()),
        (
            RustType::Ptr { mutable, elem },
            CType::Pointer {
                pointee,
                pointee_quals,
            },
        ) if !untyped(pointee) => {
            match compare(elem, pointee, subst, known) {
                Ok(()) => {}
                Err(Mismatch::Unsupported) => return Err(Mismatch::Unsupported),
                Err(Mismatch::Struct(s)) => return Err(Mismatch::Struct(s)),
                Err(_) => return Err(Mismatch::Type),
            }
            if *mutable == pointee_quals.is_const {
                Err(Mismatch::Const)
            } else {
                Ok(())
            }
        }
        _ => Err(Mismatch::Type),
    }
}

/// Pointers the stub passes as `RawDevicePtr`.
fn untyped(pointee: &CType) -> bool {
    matches!(
        pointee,
        CType::Void | CType::Pointer { .. } | CType::Array { .. }
    )
}

/// The Rust type a declaration should use for `c` (`&[f32]`, `&mut [P]`, `Float2`): the
/// model's mapping, as a declaration spells it.
pub(crate) fn expected_rust(c: &CType) -> String {
    crate::model::rust::passing(c).declared()
}

/// A type as the user wrote it, without the token spacing of `to_string`.
pub(crate) fn type_text(ty: &syn::Type) -> String {
    let raw = quote::quote!(#ty).to_string();
    let mut out = raw;
    for (from, to) in [
        ("& ", "&"),
        ("[ ", "["),
        (" ]", "]"),
        (" :: ", "::"),
        (":: ", "::"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("* ", "*"),
        ("' ", "'"),
        (" ;", ";"),
    ] {
        out = out.replace(from, to);
    }
    out
}

//! Kernel symbols: `extern "C"` kernels keep their name; C++ kernels are matched to
//! the compiled entry symbols by demangling them (`demangle`) and comparing the
//! demangled name, template arguments and parameter types with the declaration.
//!
//! Parameter and template types are compared after resolution, so spellings that
//! mangle differently but lay out the same (`long` and `long long`, `size_t` and
//! `unsigned long`) both match; if that makes two symbols fit one kernel, the kernel
//! is reported as ambiguous instead of guessed.

use std::collections::HashMap;

use super::demangle::{ANON, ANON_IDENT, Demangled, demangle, int_value};
use super::lexer::lex;
use super::linemap::LineMap;
use super::parse::{Item, parse};
use super::types::{TypeEnv, c_spelling};
use crate::diagnostics::front as msg;
use crate::model::{CType, Kernel, Linkage, ModuleInfo, Scalar, TemplateArg};

/// Reads a C type printed by the demangler (`float const*`, `geo::Pt`) with the
/// module's structs.
pub(crate) fn read_type(text: &str, env: &TypeEnv) -> Option<CType> {
    let src = format!("__global__ void f({text});");
    let lexed = lex(&src);
    let (items, diags) = parse(&src, &lexed.tokens, &LineMap::default());
    let Some(Item::Kernel(k)) = items.into_iter().next().filter(|_| diags.is_empty()) else {
        return None;
    };
    let p = k.params.first()?;
    env.resolve(&p.ty, &[], &HashMap::new())
        .ok()
        .map(|(t, _)| t)
}

/// Erases differences that do not change layout or mangled meaning here.
fn normalize(t: &CType) -> CType {
    match t {
        CType::Scalar(Scalar::Usize) => CType::Scalar(Scalar::U64),
        CType::Scalar(Scalar::Isize) => CType::Scalar(Scalar::I64),
        CType::Pointer {
            pointee,
            pointee_quals,
        } => CType::Pointer {
            pointee: Box::new(normalize(pointee)),
            pointee_quals: *pointee_quals,
        },
        CType::Array { elem, len } => CType::Array {
            elem: Box::new(normalize(elem)),
            len: *len,
        },
        CType::Struct(n) => CType::Struct(n.replace(ANON, ANON_IDENT)),
        other => other.clone(),
    }
}

/// The signature a C++ kernel is looked up by, as the demangler would print it.
pub fn signature(k: &Kernel) -> String {
    let params: Vec<String> = k.params.iter().map(|p| c_spelling(&p.ty)).collect();
    format!("{}({})", k.name, params.join(", "))
}

/// True when the demangled symbol `d` is the kernel `k`; `loose` accepts a parameter
/// the demangler prints in a form the front end cannot read (`vec4<float>::Type*`, a
/// member type of a template's instance) when everything else matches.
fn matches(k: &Kernel, d: &Demangled, env: &TypeEnv, loose: bool) -> bool {
    let mut qname: Vec<String> = k
        .namespace
        .iter()
        .map(|n| n.replace(ANON, ANON_IDENT))
        .collect();
    qname.push(k.base_name.clone());
    if d.name != qname.join("::")
        || d.params.len() != k.params.len()
        || d.template_args.len() != k.template_args.len()
    {
        return false;
    }
    let params_ok =
        k.params.iter().zip(&d.params).all(|(p, text)| {
            read_type(text, env).map_or(loose, |t| normalize(&t) == normalize(&p.ty))
        });
    let args_ok = k
        .template_args
        .iter()
        .zip(&d.template_args)
        .all(|(a, text)| match a {
            TemplateArg::Type(t) => {
                read_type(text, env).is_some_and(|r| normalize(&r) == normalize(t))
            }
            TemplateArg::Value(v) => int_value(v).is_some() && int_value(v) == int_value(text),
        });
    params_ok && args_ok
}

/// Sets the symbol of every C++ kernel of `info` from the compiled entry `symbols`.
/// A kernel that no symbol (or more than one) matches moves to [`ModuleInfo::untyped`]
/// with why (verification then types it by the images alone).
pub fn resolve_symbols(info: &mut ModuleInfo, symbols: &[String]) {
    let env = TypeEnv::with_structs(info.structs.clone());
    let demangled: Vec<(&String, Demangled)> = symbols
        .iter()
        .filter_map(|s| Some((s, demangle(s)?)))
        .collect();
    let mut elsewhere: Vec<usize> = Vec::new();
    let mut unmatched: Vec<(usize, crate::diagnostics::Diagnostic)> = Vec::new();
    for (index, k) in info
        .kernels
        .iter_mut()
        .enumerate()
        .filter(|(_, k)| k.linkage == Linkage::Cxx && !symbols.contains(&k.symbol))
    {
        let find = |loose: bool| -> Vec<String> {
            demangled
                .iter()
                .filter(|(_, d)| matches(k, d, &env, loose))
                .map(|(s, _)| (*s).clone())
                .collect()
        };
        let mut found = find(false);
        if found.is_empty() {
            // Verification compares the layouts of what this finds with the image.
            found = find(true);
        }
        match found.as_slice() {
            [one] => k.symbol = one.clone(),
            [] => {
                let near: Vec<String> = demangled
                    .iter()
                    .filter(|(_, d)| d.name.rsplit("::").next() == Some(k.base_name.as_str()))
                    .map(|(s, d)| {
                        format!(
                            "{s} = {}<{}>({})",
                            d.name,
                            d.template_args.join(", "),
                            d.params.join(", ")
                        )
                        .replace("<>(", "(")
                    })
                    .collect();
                if near.is_empty() && k.template_args.is_empty() {
                    // Declared (in a header) but compiled in another translation unit:
                    // not part of this module.
                    elsewhere.push(index);
                    continue;
                }
                let d = msg::symbol_not_found(&k.name, &signature(k), &near);
                unmatched.push((index, d.at(k.loc.clone())));
            }
            many => unmatched.push((
                index,
                msg::symbol_ambiguous(&k.name, many).at(k.loc.clone()),
            )),
        }
    }
    // A declaration that matches no compiled symbol, or several, leaves the kernel typed
    // by the images alone (verification lists the images' kernels it does not cover); one
    // declared in a header but compiled elsewhere is left out. Removed from the last.
    let mut removed: Vec<(usize, Option<crate::diagnostics::Diagnostic>)> = unmatched
        .into_iter()
        .map(|(i, d)| (i, Some(d)))
        .chain(elsewhere.into_iter().map(|i| (i, None)))
        .collect();
    removed.sort_by_key(|(i, _)| std::cmp::Reverse(*i));
    for (index, d) in removed {
        let k = info.kernels.remove(index);
        match d {
            Some(d) => {
                if info.untyped.iter().any(|u| u.name == k.name) {
                    continue;
                }
                let mut u = super::analyze::unread(k.name, String::new(), &d, None);
                u.param_names = k.params.iter().map(|p| p.name.clone()).collect();
                info.untyped.push(u);
            }
            None => {
                let at = k.loc.as_ref().map(|l| format!("{l}: ")).unwrap_or_default();
                info.skipped.push(format!(
                    "{at}kernel `{}` is declared but no image of this module holds it (defined in another file?): left out",
                    k.name
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangled_types_read_back() {
        let env = TypeEnv::default();
        let t = read_type("float const* const*", &env).unwrap();
        assert_eq!(c_spelling(&t), "const float* const*");
        assert_eq!(
            read_type("unsigned long", &env),
            Some(CType::Scalar(Scalar::U64))
        );
    }

    #[test]
    fn signature_spells_qualified_name_and_params() {
        use crate::front::{FrontInput, analyze};
        let info = analyze(&FrontInput::raw_only(
            "k.cu",
            "namespace ns { __global__ void k(const float* a, size_t n) {} }",
        ))
        .unwrap();
        assert_eq!(signature(&info.kernels[0]), "ns::k(const float*, size_t)");
    }

    #[test]
    fn resolve_symbols_picks_the_matching_instantiation() {
        use crate::front::{FrontInput, analyze};
        let src = "template<typename T> __global__ void scale(T* x, T s, unsigned n) {}\n\
                   template __global__ void scale<float>(float*, float, unsigned);";
        let mut info = analyze(&FrontInput::raw_only("k.cu", src)).unwrap();
        resolve_symbols(
            &mut info,
            &[
                "_Z5scaleIfEvPT_S0_j".to_string(),
                "_Z5scaleIdEvPT_S0_j".to_string(),
            ],
        );
        assert_eq!(info.kernels[0].symbol, "_Z5scaleIfEvPT_S0_j");
    }
}

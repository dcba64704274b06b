//! The check of Rust declarations of host functions (`host_functions!`) against the C
//! declarations of the module's files, and what each parameter is for the binding.
//!
//! ```text
//! fn sort_pairs(keys: &TrackedBuffer<u32>, out: &mut TrackedBuffer<u32>, n: i32,
//!               stream: &Arc<CudaStream>) -> Result<(), Error>;
//! ```
//!
//! Which memory a C pointer holds is said on the Rust side: `&TrackedBuffer<T>`,
//! `&TrackedView<T>`, `&CudaSlice<T>`, `&CudaView<T>` (device, `const T*`),
//! `&mut TrackedBuffer<T>`, `&mut TrackedViewMut<T>`, `&mut CudaSlice<T>`,
//! `&mut CudaViewMut<T>` (device, `T*`), `&[T]`,
//! `&mut [T]` (host), `*const T` / `*mut T` (passed as they are). `cudaStream_t` is
//! `&Arc<CudaStream>`; a `cudaError_t` return is `Result<(), Error>`. Every mismatch is
//! reported at the span of the Rust type, with the C file and line.

use std::collections::HashMap;

use super::compare::{Mismatch, compare, expected_rust, type_text};
use super::rust_type::{RustType, classify, is_device_buffer, wrapper};
use crate::diagnostics::Diagnostic;
use crate::diagnostics::host as msg;
use crate::front::is_stream;
use crate::model::host::{HostArg, HostBinding, HostRet, result_ok};
use crate::model::{CType, HostFunction, ModuleInfo};

/// Checks every declaration against `info`'s host functions; the error combines every
/// mismatch found.
pub fn check_host_declarations(
    info: &ModuleInfo,
    module: &str,
    decls: &[syn::ForeignItemFn],
) -> Result<Vec<HostBinding>, syn::Error> {
    let mut errors = Vec::new();
    let mut out = Vec::new();
    for item in decls {
        if let Some(b) = check_one(info, module, item, &mut errors) {
            out.push(b);
        }
    }
    let mut iter = errors.into_iter();
    match iter.next() {
        None => Ok(out),
        Some(mut first) => {
            first.extend(iter);
            Err(first)
        }
    }
}

fn check_one(
    info: &ModuleInfo,
    module: &str,
    item: &syn::ForeignItemFn,
    errors: &mut Vec<syn::Error>,
) -> Option<HostBinding> {
    let sig = &item.sig;
    let name = sig.ident.to_string().trim_start_matches("r#").to_owned();
    let Some(f) = info.host_functions.iter().find(|h| h.name == name) else {
        let available: Vec<String> = info.host_functions.iter().map(|h| h.name.clone()).collect();
        errors.push(msg::not_found(&name, module, &available).to_syn_error(sig.ident.span()));
        return None;
    };
    if let Some(why) = &f.unreadable {
        errors.push(
            msg::unreadable(&name, why)
                .at(f.loc.clone())
                .to_syn_error(sig.ident.span()),
        );
        return None;
    }
    let before = errors.len();
    let ret = check_return(f, sig, errors);
    let mut rust = Vec::new();
    for (i, arg) in sig.inputs.iter().enumerate() {
        match arg {
            syn::FnArg::Typed(t) => {
                let ident = match t.pat.as_ref() {
                    syn::Pat::Ident(p) => p.ident.clone(),
                    _ => quote::format_ident!("arg{i}"),
                };
                rust.push((ident, t.ty.as_ref().clone()));
            }
            syn::FnArg::Receiver(r) => {
                errors.push(spanned(
                    r,
                    &msg::unsupported_rust_type(&name, "self", "self"),
                ));
            }
        }
    }
    if rust.len() != f.params.len() {
        let d = msg::param_count(&name, f.params.len(), rust.len()).at(f.loc.clone());
        errors.push(if sig.inputs.is_empty() {
            d.to_syn_error(sig.ident.span())
        } else {
            spanned(&sig.inputs, &d)
        });
        return None;
    }
    let structs: Vec<String> = info.structs.iter().map(|s| s.name.clone()).collect();
    let mut args = Vec::new();
    for (i, (param, (ident, ty))) in f.params.iter().zip(rust).enumerate() {
        let pname = param.name.clone().unwrap_or_else(|| format!("arg{i}"));
        let loc = param.loc.clone().or_else(|| f.loc.clone());
        match role(&name, &pname, &ty, &param.ty, &param.written, &structs) {
            Ok(role) => args.push((ident, ty, role)),
            Err(d) => errors.push(spanned(&ty, &d.at(loc))),
        }
    }
    let ordered = args
        .iter()
        .any(|(_, _, r)| matches!(r, HostArg::Device { .. }));
    if ordered && !ret.is_result() {
        let d = msg::needs_result(&name).at(f.loc.clone());
        errors.push(match &sig.output {
            syn::ReturnType::Type(_, ty) => spanned(ty, &d),
            syn::ReturnType::Default => d.to_syn_error(sig.ident.span()),
        });
    }
    (errors.len() == before).then(|| HostBinding {
        item: item.clone(),
        args,
        ret,
    })
}

fn check_return(f: &HostFunction, sig: &syn::Signature, errors: &mut Vec<syn::Error>) -> HostRet {
    let rust = match &sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, ty) => Some(ty.as_ref()),
    };
    let rust_text = rust.map_or("()".to_owned(), type_text);
    let mismatch = |expected: &str| {
        let d =
            msg::return_mismatch(&f.name, &rust_text, &f.ret_written, expected).at(f.loc.clone());
        match rust {
            Some(ty) => spanned(ty, &d),
            None => d.to_syn_error(sig.ident.span()),
        }
    };
    let ok = rust.and_then(result_ok);
    if f.returns_cuda_error() {
        if !ok.is_some_and(is_unit) {
            errors.push(mismatch("Result<(), Error>"));
        }
        return HostRet::CudaError;
    }
    let (inner, wrapped) = match (rust, ok) {
        (_, Some(t)) => (Some(t), true),
        (Some(t), None) => (Some(t), false),
        (None, None) => (None, false),
    };
    let value = match (&f.ret, inner) {
        (CType::Void, None) => false,
        (CType::Void, Some(t)) if is_unit(t) => false,
        (c @ (CType::Scalar(_) | CType::Vector { .. }), Some(t))
            if compare(&classify(t), c, &HashMap::new(), &|_| false).is_ok() =>
        {
            true
        }
        (c, _) => {
            errors.push(mismatch(&expected_rust(c)));
            !matches!(c, CType::Void)
        }
    };
    match (value, wrapped) {
        (false, false) => HostRet::Unit,
        (true, false) => HostRet::Value,
        (false, true) => HostRet::ResultUnit,
        (true, true) => HostRet::ResultValue,
    }
}

fn is_unit(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty())
}

/// The role of a parameter declared `ty` in Rust for C type `c` (written `written`).
fn role(
    name: &str,
    pname: &str,
    ty: &syn::Type,
    c: &CType,
    written: &str,
    structs: &[String],
) -> Result<HostArg, Diagnostic> {
    let rust_text = type_text(ty);
    if is_stream(c) {
        return if is_stream_ref(ty) {
            Ok(HostArg::Stream)
        } else {
            Err(msg::type_mismatch(
                name,
                pname,
                &rust_text,
                written,
                "&Arc<CudaStream>",
            ))
        };
    }
    let known = |n: &str| {
        structs
            .iter()
            .any(|s| s == n || s.rsplit("::").next() == Some(n) || s.replace("::", "_") == n)
    };
    let CType::Pointer {
        pointee,
        pointee_quals,
    } = c
    else {
        return match compare(&classify(ty), c, &HashMap::new(), &known) {
            Ok(()) => Ok(HostArg::Value),
            Err(Mismatch::Struct(s)) => Err(msg::struct_mismatch(name, pname, &rust_text, &s)),
            Err(Mismatch::Unsupported) => Err(msg::unsupported_rust_type(name, pname, &rust_text)),
            Err(_) => Err(msg::type_mismatch(
                name,
                pname,
                &rust_text,
                written,
                &expected_rust(c),
            )),
        };
    };
    let (role, mutable, elem) = match memory(ty) {
        Some(m) => m,
        None => {
            let elem = match pointee.as_ref() {
                CType::Void => "T".to_owned(),
                p => expected_rust(p),
            };
            let m = if pointee_quals.is_const { "" } else { "mut " };
            return Err(match classify(ty) {
                RustType::Unsupported => msg::unsupported_rust_type(name, pname, &rust_text),
                _ => msg::memory_mismatch(
                    name,
                    pname,
                    &rust_text,
                    written,
                    &format!("&{m}TrackedBuffer<{elem}>"),
                    &format!("&{m}[{elem}]"),
                ),
            });
        }
    };
    let elem_ok = match (pointee.as_ref(), &elem) {
        // `void*` takes memory of any element type.
        (CType::Void, _) => Ok(()),
        (_, Some(e)) => compare(&classify(e), pointee, &HashMap::new(), &known),
        (_, None) => Err(Mismatch::Type),
    };
    let expected = |m: bool| {
        let e = match pointee.as_ref() {
            CType::Void => "T".to_owned(),
            p => expected_rust(p),
        };
        let m = if m { "mut " } else { "" };
        match role {
            HostArg::Device { .. } => {
                // The kind the user wrote, in its writable form where a write is needed.
                let kind = match (device_kind(ty).as_deref(), !m.is_empty()) {
                    (Some("CudaView"), true) => "CudaViewMut",
                    (Some("TrackedView"), true) => "TrackedViewMut",
                    (Some(k), _) => k,
                    (None, _) => "TrackedBuffer",
                }
                .to_owned();
                format!("&{m}{kind}<{e}>")
            }
            HostArg::Host { .. } => format!("&{m}[{e}]"),
            _ => format!("*{} {e}", if m.is_empty() { "const" } else { "mut" }),
        }
    };
    match elem_ok {
        Ok(()) => {}
        Err(Mismatch::Struct(s)) => return Err(msg::struct_mismatch(name, pname, &rust_text, &s)),
        Err(_) => {
            return Err(msg::type_mismatch(
                name,
                pname,
                &rust_text,
                written,
                &expected(!pointee_quals.is_const),
            ));
        }
    }
    if mutable == pointee_quals.is_const && !(role == HostArg::Raw && mutable) {
        return Err(msg::const_mismatch(
            name,
            pname,
            &rust_text,
            written,
            &expected(!pointee_quals.is_const),
        ));
    }
    Ok(role)
}

/// The buffer kind a reference to device memory names (`TrackedBuffer`, `CudaView`, ...).
fn device_kind(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Paren(p) => device_kind(&p.elem),
        syn::Type::Group(g) => device_kind(&g.elem),
        syn::Type::Reference(r) => match r.elem.as_ref() {
            syn::Type::Path(p) => wrapper(p).map(|(name, _)| name),
            _ => None,
        },
        _ => None,
    }
}

/// The memory a Rust pointer-like type stands for: its role, whether it is exclusive, and
/// its element type (`None` for `c_void`).
fn memory(ty: &syn::Type) -> Option<(HostArg, bool, Option<syn::Type>)> {
    match ty {
        syn::Type::Paren(p) => memory(&p.elem),
        syn::Type::Group(g) => memory(&g.elem),
        syn::Type::Reference(r) => {
            let mutable = r.mutability.is_some();
            match r.elem.as_ref() {
                syn::Type::Slice(s) => {
                    Some((HostArg::Host { mutable }, mutable, Some((*s.elem).clone())))
                }
                syn::Type::Path(p) => {
                    let (name, inner) = wrapper(p)?;
                    if !is_device_buffer(&name) {
                        return None;
                    }
                    // Through `&`, a view only reads; `&mut TrackedView<T>` cannot write.
                    let mutable = mutable && name != "CudaView" && name != "TrackedView";
                    Some((HostArg::Device { mutable }, mutable, Some(inner.clone())))
                }
                _ => None,
            }
        }
        syn::Type::Ptr(p) => {
            let mutable = p.mutability.is_some();
            let elem = match classify(&p.elem) {
                RustType::Named(n) if n == "c_void" => None,
                _ => Some((*p.elem).clone()),
            };
            Some((HostArg::Raw, mutable, elem))
        }
        _ => None,
    }
}

/// `&Arc<CudaStream>` (any path to either).
fn is_stream_ref(ty: &syn::Type) -> bool {
    let syn::Type::Reference(r) = ty else {
        return false;
    };
    let syn::Type::Path(p) = r.elem.as_ref() else {
        return false;
    };
    matches!(wrapper(p), Some((arc, syn::Type::Path(inner))) if arc == "Arc"
        && inner.path.segments.last().is_some_and(|s| s.ident == "CudaStream"))
}

fn spanned(tokens: &dyn quote::ToTokens, d: &Diagnostic) -> syn::Error {
    let text = d.to_syn_error(proc_macro2::Span::call_site()).to_string();
    syn::Error::new_spanned(tokens, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::{FrontInput, analyze_parts};

    const SRC: &str = "struct P { float a; int b; };\n\
        extern \"C\" cudaError_t sort(const unsigned* keys, unsigned* out, void* scratch, int n, cudaStream_t s) { return cudaSuccess; }\n\
        extern \"C\" void fill(float* host, const float* dev, P p) {}\n\
        extern \"C\" int count(const int* x) { return 0; }\n";

    fn check(decls: &str) -> Result<Vec<HostBinding>, String> {
        let (info, d) = analyze_parts(&FrontInput {
            preprocessed: None,
            ..FrontInput::raw_only("h.cu", SRC)
        });
        assert!(d.is_empty(), "{d}");
        let file: syn::File = syn::parse_str(&format!("extern \"C\" {{ {decls} }}")).unwrap();
        let syn::Item::ForeignMod(m) = &file.items[0] else {
            unreachable!()
        };
        let items: Vec<syn::ForeignItemFn> = m
            .items
            .iter()
            .filter_map(|i| match i {
                syn::ForeignItem::Fn(f) => Some(f.clone()),
                _ => None,
            })
            .collect();
        check_host_declarations(&info, "h", &items).map_err(|e| {
            e.into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    #[test]
    fn roles_of_matching_declarations() {
        let b = check(
            "fn sort(keys: &CudaSlice<u32>, out: &mut CudaViewMut<u32>, scratch: &mut CudaSlice<u8>, n: i32, s: &Arc<CudaStream>) -> Result<(), Error>;\n\
             fn fill(host: &mut [f32], dev: &CudaView<f32>, p: P) -> cuda_kernel_runtime::Result<()>;\n\
             fn count(x: *const i32) -> i32;",
        )
        .unwrap();
        let roles: Vec<Vec<HostArg>> = b
            .iter()
            .map(|b| b.args.iter().map(|a| a.2).collect())
            .collect();
        assert_eq!(
            roles,
            [
                vec![
                    HostArg::Device { mutable: false },
                    HostArg::Device { mutable: true },
                    HostArg::Device { mutable: true },
                    HostArg::Value,
                    HostArg::Stream
                ],
                vec![
                    HostArg::Host { mutable: true },
                    HostArg::Device { mutable: false },
                    HostArg::Value
                ],
                vec![HostArg::Raw],
            ]
        );
        assert_eq!(b[0].ret, HostRet::CudaError);
        assert_eq!(b[1].ret, HostRet::ResultUnit);
        assert_eq!(b[2].ret, HostRet::Value);
    }

    #[test]
    fn every_mismatch_is_reported() {
        let e = check(
            "fn sort(keys: &CudaSlice<i32>, out: &CudaSlice<u32>, scratch: Vec<u8>, n: u32, s: &CudaStream);\n\
             fn fill(host: &[f32], dev: &CudaView<f32>, p: Q);\n\
             fn count(x: *const i32, y: i32) -> i32;\n\
             fn nope();",
        )
        .unwrap_err();
        for want in [
            "host function `sort` returns `cudaError_t` in CUDA but `()`",
            "parameter `keys`: Rust type `&CudaSlice<i32>` does not match CUDA type `const unsigned*`",
            "parameter `out`: const-ness differs",
            "parameter `scratch`: Rust type `Vec<u8>` cannot be passed to a host function",
            "parameter `n`: Rust type `u32` does not match CUDA type `int`",
            "parameter `s`: Rust type `&CudaStream` does not match CUDA type `cudaStream_t`",
            "function `fill`, parameter `host`: const-ness differs",
            "parameter `p`: Rust type `Q` is not CUDA struct `P`",
            "host function `count` takes 1 parameter in CUDA but 2",
            "host function `fill` takes device memory: declare it to return `Result<(), Error>`",
            "host function `nope` is declared in Rust but module `h` does not define it",
        ] {
            assert!(e.contains(want), "missing {want:?} in:\n{e}");
        }
    }

    #[test]
    fn tracked_buffers_and_views_are_device_memory() {
        let b = check(
            "fn sort(keys: &TrackedBuffer<u32>, out: &mut TrackedViewMut<u32>, scratch: &mut TrackedBuffer<u8>, n: i32, s: &Arc<CudaStream>) -> Result<(), Error>;\n\
             fn fill(host: &mut [f32], dev: &TrackedView<f32>, p: P) -> cuda_kernel_runtime::Result<()>;\n\
             fn count(x: *const i32) -> i32;",
        )
        .unwrap();
        let roles: Vec<HostArg> = b[0].args.iter().map(|a| a.2).collect();
        assert_eq!(
            roles[..3],
            [
                HostArg::Device { mutable: false },
                HostArg::Device { mutable: true },
                HostArg::Device { mutable: true },
            ]
        );
        assert_eq!(b[1].args[1].2, HostArg::Device { mutable: false });
    }

    #[test]
    fn a_const_fix_keeps_the_kind_written() {
        let e = check(
            "fn sort(keys: &TrackedBuffer<u32>, out: &TrackedView<u32>, scratch: &mut CudaSlice<u8>, n: i32, s: &Arc<CudaStream>) -> Result<(), Error>;\n\
             fn fill(host: &mut [f32], dev: &CudaView<f32>, p: P) -> Result<(), Error>;\n\
             fn count(x: *const i32) -> i32;",
        )
        .unwrap_err();
        assert!(e.contains("parameter `out`: const-ness differs"), "{e}");
        assert!(
            e.contains("declare it as `&mut TrackedViewMut<u32>`"),
            "{e}"
        );
    }

    #[test]
    fn a_declared_host_function_the_module_lacks_is_named() {
        let decl: syn::ForeignItemFn = syn::parse_quote!(
            fn missing(n: i32);
        );
        let err = check_host_declarations(&ModuleInfo::default(), "m", &[decl]).unwrap_err();
        assert!(err.to_string().contains("host function `missing`"), "{err}");
    }
}

//! Reading shared types: one `#[derive(CudaType)]` item (the derive's input), or every such
//! item of a Rust file (a build script, `cuda_module!`'s `types`), read the same way.

use syn::spanned::Spanned;

use super::fields::c_type;
use super::{SharedField, SharedKind, SharedType};
use crate::diagnostics::shared as msg;
use crate::model::{CType, Scalar};

/// Reads a derive's input; every problem is in the error, each at its span.
pub fn read_item(item: &syn::DeriveInput) -> syn::Result<SharedType> {
    let name = item.ident.to_string();
    let mut errors = Errors::default();
    if !item.generics.params.is_empty() {
        errors.push(syn::Error::new(item.generics.span(), msg::generic(&name)));
    }
    let repr = Repr::of(&item.attrs)?;
    errors.take(type_keys(&item.attrs));
    let kind = match &item.data {
        syn::Data::Struct(data) => {
            if repr.packed {
                errors.push(syn::Error::new(item.ident.span(), msg::packed(&name)));
            } else if !repr.c {
                errors.push(syn::Error::new(item.ident.span(), msg::not_repr_c(&name)));
            }
            let syn::Fields::Named(named) = &data.fields else {
                let what = "a struct without named fields";
                return Err(errors.with(syn::Error::new(
                    item.ident.span(),
                    msg::not_named_struct(&name, what),
                )));
            };
            let mut fields = Vec::new();
            for f in &named.named {
                match read_field(&name, f) {
                    Ok(Some(field)) => fields.push(field),
                    Ok(None) => {}
                    Err(e) => errors.push(e),
                }
            }
            SharedKind::Struct {
                align: repr.align,
                fields,
            }
        }
        syn::Data::Enum(data) => {
            let repr_int = match (repr.int, repr.c) {
                (Some(s), _) => Some(s),
                (None, true) => Some(Scalar::I32),
                (None, false) => None,
            };
            if repr_int.is_none() {
                errors.push(syn::Error::new(
                    item.ident.span(),
                    msg::enum_without_repr(&name),
                ));
            }
            let mut variants = Vec::new();
            let mut next: i128 = 0;
            for v in &data.variants {
                let vname = v.ident.to_string();
                if !matches!(v.fields, syn::Fields::Unit) {
                    errors.push(syn::Error::new(
                        v.span(),
                        msg::variant_with_data(&name, &vname),
                    ));
                    continue;
                }
                let value = match &v.discriminant {
                    None => Some(next),
                    Some((_, e)) => int_literal(e),
                };
                match value {
                    Some(value) => {
                        variants.push((vname, value));
                        next = value + 1;
                    }
                    None => errors.push(syn::Error::new(
                        v.discriminant.as_ref().map_or(v.span(), |(_, e)| e.span()),
                        msg::variant_value(&name, &vname),
                    )),
                }
            }
            SharedKind::Enum {
                repr: repr_int.unwrap_or(Scalar::I32),
                variants,
            }
        }
        syn::Data::Union(_) => {
            return Err(errors.with(syn::Error::new(
                item.ident.span(),
                msg::not_named_struct(&name, "a union"),
            )));
        }
    };
    errors.finish()?;
    Ok(SharedType {
        name,
        module: Vec::new(),
        doc: doc(&item.attrs),
        kind,
    })
}

/// One named field of the struct `owner`: its C type and its `#[cuda]` keys; `None` for a
/// field without a name. The error is at the field's type (or the key).
pub fn read_field(owner: &str, f: &syn::Field) -> syn::Result<Option<SharedField>> {
    let Some(ident) = &f.ident else {
        return Ok(None);
    };
    let name = ident.to_string();
    let ty = c_type(owner, &name, &f.ty)?;
    let c = field_c_type(owner, &name, &ty, &f.attrs)?;
    Ok(Some(SharedField {
        name,
        ty,
        c_type: c,
        doc: doc(&f.attrs),
    }))
}

/// Every `#[derive(CudaType)]` struct and enum of a Rust file's text, in order, with the
/// inline module each is in. An error is `file:line:col: message`, one per problem.
pub fn read_file(file: &str, text: &str) -> Result<Vec<SharedType>, Vec<String>> {
    let _lexer = OwnLexer::start();
    let parsed = syn::parse_file(text).map_err(|e| vec![located(file, &e)])?;
    let mut found = Vec::new();
    let mut errors = Vec::new();
    walk(&parsed.items, &mut Vec::new(), &mut found, &mut |e| {
        errors.extend(e.into_iter().map(|e| located(file, &e)));
    });
    if errors.is_empty() {
        Ok(found)
    } else {
        Err(errors)
    }
}

/// While alive, text is lexed by proc-macro2 itself, whose spans carry the text's own lines
/// and columns: inside a macro the compiler's lexer would give every token the macro's call
/// site, so an error in a types file would point at the line of `cuda_module!` instead of the
/// field. Nothing lexed meanwhile outlives [`read_file`] as tokens (it returns names and
/// types as text), so no token of one kind meets one of the other.
struct OwnLexer;

impl OwnLexer {
    fn start() -> OwnLexer {
        proc_macro2::fallback::force();
        OwnLexer
    }
}

impl Drop for OwnLexer {
    fn drop(&mut self) {
        proc_macro2::fallback::unforce();
    }
}

fn walk(
    items: &[syn::Item],
    module: &mut Vec<String>,
    found: &mut Vec<SharedType>,
    error: &mut dyn FnMut(syn::Error),
) {
    for item in items {
        let input: syn::DeriveInput = match item {
            syn::Item::Struct(s) if derives_cuda_type(&s.attrs) => s.clone().into(),
            syn::Item::Enum(e) if derives_cuda_type(&e.attrs) => e.clone().into(),
            syn::Item::Union(u) if derives_cuda_type(&u.attrs) => u.clone().into(),
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    module.push(m.ident.to_string());
                    walk(inner, module, found, error);
                    module.pop();
                }
                continue;
            }
            _ => continue,
        };
        match read_item(&input) {
            Ok(mut t) => {
                t.module = module.clone();
                found.push(t);
            }
            Err(e) => error(e),
        }
    }
}

/// Whether `#[derive(..)]` lists `CudaType` (by any path).
fn derives_cuda_type(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            let mut found = false;
            let _ = a.parse_nested_meta(|meta| {
                if meta
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "CudaType")
                {
                    found = true;
                }
                Ok(())
            });
            found
        })
}

/// `file:line:col: message` for an error read outside a compiler.
fn located(file: &str, e: &syn::Error) -> String {
    let start = e.span().start();
    format!("{file}:{}:{}: error: {e}", start.line, start.column + 1)
}

/// An integer literal, possibly negated.
fn int_literal(e: &syn::Expr) -> Option<i128> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse().ok(),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => int_literal(expr).map(|v: i128| -v),
        syn::Expr::Group(g) => int_literal(&g.expr),
        syn::Expr::Paren(p) => int_literal(&p.expr),
        _ => None,
    }
}

/// The lines of a doc comment.
fn doc(attrs: &[syn::Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(syn::MetaNameValue {
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }),
                ..
            }) => Some(s.value().trim().to_string()),
            _ => None,
        })
        .collect()
}

/// The keys of `#[cuda(..)]` on the type: `crate = "path"` (the derive's, read there).
fn type_keys(attrs: &[syn::Attribute]) -> syn::Result<()> {
    for a in attrs.iter().filter(|a| a.path().is_ident("cuda")) {
        a.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let _: syn::LitStr = meta.value()?.parse()?;
                Ok(())
            } else {
                let key = quote::ToTokens::to_token_stream(&meta.path).to_string();
                Err(meta.error(msg::unknown_attribute(&key, "`crate`")))
            }
        })?;
    }
    Ok(())
}

/// `#[cuda(c_type = "const float*")]` on a field: a device pointer's C type.
fn field_c_type(
    owner: &str,
    field: &str,
    ty: &CType,
    attrs: &[syn::Attribute],
) -> syn::Result<Option<String>> {
    let mut c = None;
    for a in attrs.iter().filter(|a| a.path().is_ident("cuda")) {
        a.parse_nested_meta(|meta| {
            if meta.path.is_ident("c_type") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                let text = lit.value();
                let pointer = matches!(ty, CType::Pointer { .. });
                if !pointer || !text.trim_end().ends_with('*') {
                    return Err(syn::Error::new(
                        lit.span(),
                        msg::c_type_not_pointer(owner, field),
                    ));
                }
                c = Some(text.trim().to_string());
                Ok(())
            } else {
                let key = quote::ToTokens::to_token_stream(&meta.path).to_string();
                Err(meta.error(msg::unknown_attribute(&key, "`c_type`")))
            }
        })?;
    }
    Ok(c)
}

/// What `#[repr(..)]` says.
#[derive(Default)]
struct Repr {
    c: bool,
    packed: bool,
    align: Option<u64>,
    int: Option<Scalar>,
}

impl Repr {
    fn of(attrs: &[syn::Attribute]) -> syn::Result<Repr> {
        let mut r = Repr::default();
        for a in attrs.iter().filter(|a| a.path().is_ident("repr")) {
            a.parse_nested_meta(|meta| {
                let word = meta
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                match word.as_str() {
                    "C" => r.c = true,
                    "packed" => {
                        r.packed = true;
                        if meta.input.peek(syn::token::Paren) {
                            let _ = meta.input.parse::<proc_macro2::Group>()?;
                        }
                    }
                    "align" => {
                        let content;
                        syn::parenthesized!(content in meta.input);
                        let n: syn::LitInt = content.parse()?;
                        r.align = Some(n.base10_parse()?);
                    }
                    "i8" => r.int = Some(Scalar::I8),
                    "i16" => r.int = Some(Scalar::I16),
                    "i32" => r.int = Some(Scalar::I32),
                    "i64" => r.int = Some(Scalar::I64),
                    "u8" => r.int = Some(Scalar::U8),
                    "u16" => r.int = Some(Scalar::U16),
                    "u32" => r.int = Some(Scalar::U32),
                    "u64" => r.int = Some(Scalar::U64),
                    _ => {}
                }
                Ok(())
            })?;
        }
        Ok(r)
    }
}

/// Errors collected into one `syn::Error` (each keeps its span).
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    fn take(&mut self, r: syn::Result<()>) {
        if let Err(e) = r {
            self.push(e);
        }
    }

    fn with(mut self, e: syn::Error) -> syn::Error {
        self.push(e);
        self.0.take().unwrap_or_else(unreachable_error)
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// Never made: `Errors::with` always holds the error it was given.
fn unreachable_error() -> syn::Error {
    syn::Error::new(proc_macro2::Span::call_site(), "no error")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(src: &str) -> syn::Result<SharedType> {
        read_item(&syn::parse_str(src).unwrap())
    }

    #[test]
    fn a_struct_and_an_enum_are_read_with_their_layout_words() {
        let t = read(
            "/// A particle.\n#[repr(C, align(16))] struct P { /// Where.\n pos: [f32; 3], \
             #[cuda(c_type = \"const float*\")] data: RawDevicePtr, kind: Kind }",
        )
        .unwrap();
        assert_eq!(t.doc, ["A particle."]);
        let SharedKind::Struct { align, fields } = &t.kind else {
            panic!()
        };
        assert_eq!(*align, Some(16));
        assert_eq!(fields[0].doc, ["Where."]);
        assert_eq!(fields[1].c_type.as_deref(), Some("const float*"));
        assert_eq!(t.uses(), ["Kind"]);
        let e = read("#[repr(u8)] enum Kind { Gas, Dust = 4, Ice, Cold = -1 }").unwrap();
        let SharedKind::Enum { repr, variants } = &e.kind else {
            panic!()
        };
        assert_eq!(*repr, Scalar::U8);
        let values: Vec<i128> = variants.iter().map(|(_, v)| *v).collect();
        assert_eq!(values, [0, 4, 5, -1]);
        assert!(e.zero_is_a_value());
        assert!(
            !read("#[repr(i32)] enum K { A = 1 }")
                .unwrap()
                .zero_is_a_value()
        );
    }

    #[test]
    fn every_refusal_of_an_item_comes_at_once() {
        let e = read("struct P { a: bool, b: usize, c: f32 }").unwrap_err();
        let all: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(all.len(), 3, "{all:?}");
        assert!(all[0].contains("is not `#[repr(C)]`"));
        assert!(all[1].contains("`P.a`") && all[2].contains("`P.b`"));
        let e = read("#[repr(C, packed)] struct P { a: f32 }").unwrap_err();
        assert!(e.to_string().contains("packed"));
        let e = read("#[repr(C)] struct P<T> { a: T }").unwrap_err();
        assert!(e.to_string().contains("generic"));
        let e = read("enum K { A, B(i32) }").unwrap_err();
        let all: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
        assert!(all[0].contains("no integer `repr`") && all[1].contains("carries data"));
        let e = read("#[repr(C)] struct P { #[cuda(c_type = \"float*\")] a: f32 }").unwrap_err();
        assert!(e.to_string().contains("goes on a `RawDevicePtr` field"));
    }

    #[test]
    fn a_file_gives_its_derived_items_with_their_modules_and_errors_located() {
        let src = "#[derive(Clone, Copy, cuda_kernel_runtime::CudaType)]\n#[repr(C)]\n\
                   pub struct A { x: f32 }\n\
                   pub struct NotShared { v: Vec<f32> }\n\
                   pub mod inner {\n  #[derive(CudaType)]\n  #[repr(i32)]\n  pub enum K { X }\n}\n";
        let types = read_file("src/p.rs", src).unwrap();
        let names: Vec<(&str, Vec<String>)> = types
            .iter()
            .map(|t| (t.name.as_str(), t.module.clone()))
            .collect();
        assert_eq!(names, [("A", vec![]), ("K", vec!["inner".to_string()])]);
        let bad = "#[derive(CudaType)]\n#[repr(C)]\nstruct P {\n    alive: bool,\n}\n";
        let e = read_file("src/p.rs", bad).unwrap_err();
        assert!(
            e[0].starts_with("src/p.rs:4:12: error: field `P.alive`"),
            "{e:?}"
        );
    }
}

//! `#[derive(CudaType)]`: a user's `#[repr(C)]` struct or fieldless enum made a type kernels
//! take. The item is read as the headers read it (`shared_types::read_item`), so what the
//! derive accepts a build can declare in CUDA; each field's type must itself be a
//! `CudaType` (an error at the field otherwise), and the expansion implements cudarc's
//! `DeviceRepr`, `ValidAsZeroBits` where all-zero bytes are a value, and `CudaType`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::shared_types::{SharedKind, read_field, read_item};

/// Expands the derive on `tokens` (never panics; errors become `compile_error!`s, beside
/// the impls so that uses of the type get no second error).
pub fn expand(tokens: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(tokens) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let key = match crate_key(&input.attrs) {
        Ok(key) => key,
        Err(e) => return e.to_compile_error(),
    };
    let rt = match super::runtime_path(key.as_ref(), input.ident.span()) {
        Ok(path) => path,
        Err(e) => return e.to_compile_error(),
    };
    let read = read_item(&input);
    let errors = read.as_ref().err().map(syn::Error::to_compile_error);
    let name = &input.ident;
    let cname = name.to_string();
    let zero = match &read {
        Ok(t) => t.zero_is_a_value(),
        Err(_) => true,
    };
    let checks = match &input.data {
        syn::Data::Struct(data) => {
            // A field refused for its type already has its error; the bounds would repeat it
            // (an item read without error has no refused field).
            let accepted = data
                .fields
                .iter()
                .filter(|f| read.is_ok() || read_field(&cname, f).is_ok());
            let per_field = accepted.map(|f| {
                let ty = &f.ty;
                quote_spanned! {ty.span()=>
                    __cuda_type::<#ty>();
                    __zero_bits::<#ty>();
                }
            });
            quote! {
                const _: () = {
                    #[allow(dead_code, clippy::extra_unused_type_parameters)]
                    fn __fields_are_cuda_types() {
                        fn __cuda_type<T: #rt::CudaType>() {}
                        fn __zero_bits<T: #rt::__private::cudarc::driver::ValidAsZeroBits>() {}
                        #(#per_field)*
                    }
                };
            }
        }
        _ => TokenStream::new(),
    };
    let zero_impl = zero.then(|| {
        quote! {
            // SAFETY: every field's all-zero bytes are a value (checked above), or for an
            // enum, a variant is 0.
            unsafe impl #rt::__private::cudarc::driver::ValidAsZeroBits for #name {}
        }
    });
    let layout = match &read {
        Ok(t) => match &t.kind {
            SharedKind::Enum { .. } => "a fieldless enum with an integer `repr`",
            SharedKind::Struct { .. } => "`#[repr(C)]` with fields that are CUDA types",
        },
        Err(_) => "refused above",
    };
    let doc = format!(" {layout}");
    quote! {
        #errors
        #checks
        // SAFETY: laid out as its CUDA declaration:
        #[doc = #doc]
        unsafe impl #rt::__private::cudarc::driver::DeviceRepr for #name {}
        #zero_impl
        // SAFETY: as above.
        unsafe impl #rt::CudaType for #name {
            const CUDA_NAME: &'static str = #cname;
        }
    }
}

/// The `crate = "path"` key of `#[cuda(..)]`, when given.
fn crate_key(attrs: &[syn::Attribute]) -> syn::Result<Option<syn::LitStr>> {
    let mut key = None;
    for a in attrs.iter().filter(|a| a.path().is_ident("cuda")) {
        a.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                key = Some(meta.value()?.parse()?);
            }
            Ok(())
        })?;
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(src: &str) -> String {
        expand(src.parse().unwrap()).to_string()
    }

    #[test]
    fn a_struct_gets_the_impls_and_a_check_per_field() {
        let out =
            expanded("#[cuda(crate = \"rt\")] #[repr(C)] struct P { pos: [f32; 3], kind: Kind }");
        assert!(
            out.contains("unsafe impl rt :: __private :: cudarc :: driver :: DeviceRepr for P")
        );
        assert!(out.contains("unsafe impl rt :: CudaType for P"));
        assert!(out.contains("__cuda_type :: < Kind > ()"), "{out}");
        assert!(out.contains("ValidAsZeroBits for P"));
        assert!(!out.contains("compile_error"), "{out}");
    }

    #[test]
    fn an_enum_without_a_zero_is_not_zeroable_and_refusals_are_errors() {
        let out = expanded("#[cuda(crate = \"rt\")] #[repr(i32)] enum K { A = 1, B }");
        assert!(!out.contains("ValidAsZeroBits for K"), "{out}");
        let out = expanded("#[cuda(crate = \"rt\")] struct P { alive: bool }");
        assert!(out.contains("compile_error"), "{out}");
        assert!(
            out.contains("is not `#[repr(C)]`") && out.contains("`P.alive`"),
            "{out}"
        );
    }
}

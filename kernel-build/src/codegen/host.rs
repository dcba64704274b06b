//! Bindings of host functions (`host_functions!`): one `unsafe fn` per checked declaration,
//! with the declaration's own signature, calling the C function through an `extern "C"` item
//! of C types.
//!
//! ```text
//! pub unsafe fn sort(keys: &CudaSlice<u32>, n: i32, s: &Arc<CudaStream>) -> Result<(), Error> {
//!     unsafe extern "C" { #[link_name = "sort"] fn raw(_: *mut c_void, _: i32, _: *mut c_void) -> i32; }
//!     let stream = s.clone();
//!     let mut a0 = keys;
//!     let p0 = DeviceArg::prepare(&mut a0, &stream)?;     // waits on the buffer's writes
//!     let code = unsafe { raw(host::address(&p0), n, host::stream_handle(s)) };
//!     PreparedArg::finish(p0, &stream)?;                  // records the call's use
//!     host::cuda_result("sort", code, error names)        // cudaError_t → Result
//! }
//! ```
//!
//! A function without a `cudaStream_t` runs on the legacy default stream: its buffers are
//! ordered on the default stream of their context.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::host::{HostArg, HostBinding, HostRet, result_ok};

/// The C functions of a module's host library that name CUDA errors.
pub fn error_name_functions(module: &str) -> (String, String) {
    (
        format!("kernel_build_error_name_{module}"),
        format!("kernel_build_error_string_{module}"),
    )
}

/// The bindings of `bindings`, for host functions of module `module` whose metadata is at
/// `metadata` (included, so that rustc rebuilds the crate when it changes).
pub fn host_bindings(
    module: &str,
    metadata: &str,
    bindings: &[HostBinding],
    runtime: &syn::Path,
) -> TokenStream {
    let fns = bindings.iter().map(|b| binding(module, b, runtime));
    quote! {
        const _: &[u8] = ::core::include_bytes!(#metadata);
        #(#fns)*
    }
}

fn binding(module: &str, b: &HostBinding, rt: &syn::Path) -> TokenStream {
    let private = quote!(#rt::__private);
    let sig = &b.item.sig;
    let name = &sig.ident;
    let symbol = name.to_string().trim_start_matches("r#").to_owned();
    let attrs = &b.item.attrs;
    let vis = &b.item.vis;
    let generics = &sig.generics;
    let output = &sig.output;
    let params = b.args.iter().map(|(id, ty, _)| quote!(#id: #ty));
    let void = quote!(*mut ::core::ffi::c_void);
    let raw_params = b.args.iter().map(|(_, ty, role)| match role {
        HostArg::Value => quote!(#ty),
        _ => void.clone(),
    });
    let raw_ret = match b.ret {
        HostRet::Unit | HostRet::ResultUnit => quote!(),
        HostRet::CudaError => quote!(-> i32),
        HostRet::Value => quote!(#output),
        HostRet::ResultValue => match output {
            syn::ReturnType::Type(_, ty) => result_ok(ty).map_or(quote!(), |t| quote!(-> #t)),
            syn::ReturnType::Default => quote!(),
        },
    };
    // The stream the call's buffers are ordered on.
    let stream = b
        .args
        .iter()
        .find(|(_, _, r)| *r == HostArg::Stream)
        .map(|(id, _, _)| quote!(::std::sync::Arc::clone(#id)))
        .or_else(|| {
            b.args
                .iter()
                .find(|(_, _, r)| matches!(r, HostArg::Device { .. }))
                .map(|(id, _, _)| quote!(#private::host::default_stream(&*#id)))
        });
    let mut prepare = Vec::new();
    let mut finish = Vec::new();
    let mut call = Vec::new();
    for (i, (id, _, role)) in b.args.iter().enumerate() {
        let arg = format_ident!("__arg{i}");
        let prep = format_ident!("__prepared{i}");
        match role {
            HostArg::Value => call.push(quote!(#id)),
            HostArg::Device { .. } => {
                prepare.push(quote! {
                    let mut #arg = #id;
                    let #prep = #private::DeviceArg::prepare(&mut #arg, &__stream)?;
                });
                call.push(quote!(#private::host::address(&#prep)));
                finish.push(quote!(#private::PreparedArg::finish(#prep, &__stream)?;));
            }
            HostArg::Host { mutable: false } => {
                call.push(quote!(#private::host::host_ptr(#id)));
            }
            HostArg::Host { mutable: true } => {
                call.push(quote!(#private::host::host_ptr_mut(#id)));
            }
            HostArg::Raw => call.push(quote!(#id as #void)),
            HostArg::Stream => call.push(quote!(#private::host::stream_handle(#id))),
        }
    }
    let stream_decl = stream.map(|s| quote!(let __stream = #s;));
    let (err_name, err_string) = error_name_functions(module);
    let (err_name, err_string) = (format_ident!("{err_name}"), format_ident!("{err_string}"));
    let errors_decl = (b.ret == HostRet::CudaError).then(|| {
        quote! {
            fn #err_name(code: i32) -> *const ::core::ffi::c_char;
            fn #err_string(code: i32) -> *const ::core::ffi::c_char;
        }
    });
    let finish_and_return = match b.ret {
        HostRet::CudaError => quote! {
            #(#finish)*
            // SAFETY: the module's host library defines both; they return static strings.
            unsafe { #private::host::cuda_result(#symbol, __ret, #err_name, #err_string) }
        },
        HostRet::ResultUnit | HostRet::ResultValue => quote! {
            #(#finish)*
            ::core::result::Result::Ok(__ret)
        },
        HostRet::Unit | HostRet::Value => quote!(__ret),
    };
    quote! {
        #(#attrs)*
        #[allow(clippy::too_many_arguments, clippy::needless_lifetimes)]
        #vis unsafe fn #name #generics (#(#params),*) #output {
            unsafe extern "C" {
                #[link_name = #symbol]
                fn __raw(#(_: #raw_params),*) #raw_ret;
                #errors_decl
            }
            #stream_decl
            #(#prepare)*
            // SAFETY: the declaration was checked against the C one (count, types, const-ness,
            // layouts); what the C function does with its arguments is the caller's promise.
            let __ret = unsafe { __raw(#(#call),*) };
            #finish_and_return
        }
    }
}

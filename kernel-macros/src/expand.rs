//! The expansion of `cuda_module!`: build through `kernel-build` (and its cache),
//! check the Rust declarations, generate the module; on errors, a best-effort
//! module beside the `compile_error!`s so that user code gets no secondary errors.

use std::path::PathBuf;

use kernel_build::__private::check::check_declarations;
use kernel_build::__private::codegen::{self, CodegenOptions, ModuleParts};
use kernel_build::__private::pipeline::{Context, ModuleRequest, SourceInput, build_module};
use proc_macro2::TokenStream;
use quote::quote;

use crate::errors;
use crate::input::{ModuleInput, Source};

/// Environment variables the build reads; rustc records them through `option_env!`
/// so that changing one re-expands the macro.
const TRACKED_ENV: &[&str] = &[
    "NVCC",
    "CUDA_PATH",
    "CUDA_HOME",
    "KERNEL_CUDA_TOOLKIT_DIR",
    "KERNEL_BUILD_ARCHS",
    "KERNEL_BUILD_NVCC_FLAGS",
    "KERNEL_BUILD_CACHE_DIR",
    "KERNEL_BUILD_NO_CACHE",
    "KERNEL_BUILD_NO_DEVICE_CODE",
    "KERNEL_BUILD_NVCC_WRAPPER",
    "RUSTC_WRAPPER",
    "DOCS_RS",
];

/// Expands one `cuda_module!` invocation (never panics; errors become `compile_error!`).
pub(crate) fn cuda_module(input: &ModuleInput) -> TokenStream {
    let req = match request(input) {
        Ok(req) => req,
        Err(e) => return with_fallback(input, e),
    };
    let built = match build_module(&req, &Context::default()) {
        Ok(built) => built,
        Err(e) => return with_fallback(input, errors::build_error(&e, input)),
    };
    let sigs: Vec<syn::Signature> = input.decls.iter().map(|d| d.sig.clone()).collect();
    let checked = check_declarations(&built.info, &sigs);
    let parts = ModuleParts {
        name: built.name,
        info: built.info,
        fatbin_path: built.fatbin_path,
        targets: built.targets,
        toolkit_version: built.toolkit_version,
        tracked_files: built.tracked_files,
        units: built.units,
        runtime_source: built.runtime_source,
    };
    let module = codegen::generate_parts(&parts, &options(input));
    match checked {
        Ok(()) => module,
        Err(e) => {
            let errors = e.to_compile_error();
            quote!(#module #errors)
        }
    }
}

/// The build request from the macro options.
fn request(input: &ModuleInput) -> syn::Result<ModuleRequest> {
    let source = match &input.source {
        Source::Inline(lit) => SourceInput::Inline { text: lit.value() },
        Source::File(lit) => SourceInput::File {
            path: PathBuf::from(lit.value()),
        },
        Source::Files(lits) => SourceInput::Files {
            paths: lits.iter().map(|l| PathBuf::from(l.value())).collect(),
        },
    };
    let mut req = ModuleRequest::new(input.name.to_string(), source);
    req.archs = input
        .arch
        .as_ref()
        .map(|list| list.iter().map(syn::LitStr::value).collect());
    req.includes = input
        .include
        .iter()
        .map(|l| PathBuf::from(l.value()))
        .collect();
    req.flags = input.flags.iter().map(syn::LitStr::value).collect();
    req.require_every_target = input.require_every_target;
    if let Some((_, mode)) = &input.link {
        req.link = *mode;
    }
    req.runtime = input.runtime;
    for lit in &input.define {
        let text = lit.value();
        let (name, value) = match text.split_once('=') {
            Some((n, v)) => (n.trim().to_owned(), Some(v.to_owned())),
            None => (text.trim().to_owned(), None),
        };
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(syn::Error::new(
                lit.span(),
                format!("`{text}` is not a definition: expected `NAME` or `NAME=VALUE`"),
            ));
        }
        req.defines.push((name, value));
    }
    Ok(req)
}

/// Codegen options from the macro input.
fn options(input: &ModuleInput) -> CodegenOptions {
    let mut opts = CodegenOptions::default();
    opts.vis = input.vis.clone();
    opts.attrs = input.attrs.clone();
    opts.safe_kernels = input
        .decls
        .iter()
        .filter(|d| d.safe)
        .map(|d| d.sig.ident.to_string())
        .collect();
    opts.track_files = true;
    opts.tracked_env = TRACKED_ENV.iter().map(|v| (*v).to_owned()).collect();
    opts
}

/// The errors, plus a module with the declared kernels accepting anything, so that
/// the only errors the user sees are the real ones.
fn with_fallback(input: &ModuleInput, error: syn::Error) -> TokenStream {
    let (attrs, vis, name) = (&input.attrs, &input.vis, &input.name);
    let rt = CodegenOptions::default().runtime;
    let stubs = input.decls.iter().map(|d| {
        let ident = &d.sig.ident;
        let args = (0..d.sig.inputs.len()).map(|i| {
            let arg = quote::format_ident!("_arg{}", i);
            quote!(#arg: impl ::core::marker::Sized)
        });
        let unsafety = (!d.safe).then(|| quote!(unsafe));
        let generics = &d.sig.generics;
        quote! {
            /// Not available: the module failed to build.
            pub #unsafety fn #ident #generics(&self, _cfg: &#rt::LaunchConfig, #(#args),*)
                -> ::core::result::Result<(), #rt::Error> {
                ::core::unreachable!()
            }
        }
    });
    let errors = error.to_compile_error();
    quote! {
        #errors
        #(#attrs)*
        #[allow(dead_code, unused_variables, missing_docs)]
        #vis mod #name {
            /// Not available: the module failed to build.
            pub fn load(_gpu: &#rt::Gpu) -> ::core::result::Result<Module, #rt::Error> {
                ::core::unreachable!()
            }
            /// Not available: the module failed to build.
            #[derive(Clone)]
            pub struct Module;
            impl Module {
                #(#stubs)*
            }
        }
    }
}

//! The module shell: tracking of inputs, the embedded image, `load`, the handle type.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{
    CodegenOptions, arg_bounds, docs, enums, globals, metadata, path_literal, structs, stubs,
    tuned, types,
};
use crate::model::built::BuiltModule;
use crate::model::rust::plan;

/// The `mod` item, with `extra` methods on `Module` (the stand-in's methods).
pub(crate) fn module_with(
    parts: &BuiltModule,
    opts: &CodegenOptions,
    extra: TokenStream,
) -> TokenStream {
    module_with_items(parts, opts, extra, TokenStream::new())
}

/// The `mod` item, with `extra` methods on `Module` and `items` beside it (the launchers
/// of generated kernels and their dispatch traits).
pub(crate) fn module_with_items(
    parts: &BuiltModule,
    opts: &CodegenOptions,
    extra: TokenStream,
    items: TokenStream,
) -> TokenStream {
    let rt = runtime_tokens(opts);
    let name = format_ident!("{}", parts.name);
    let vis = &opts.vis;
    let attrs = &opts.attrs;
    let default_doc = (!attrs.iter().any(|a| a.path().is_ident("doc"))).then(|| {
        let doc = format!(" CUDA kernels of module `{}`.", parts.name);
        quote!(#[doc = #doc])
    });
    let contract = docs::CONTRACT.lines().map(|l| format!(" {l}"));
    let contract = quote!(#(#[doc = #contract])*);
    // The shell's own items.
    let tracking = tracking(parts, opts);
    let warnings = warnings(parts, opts);
    let handle = handle(&rt);
    let library = library(parts, &rt);
    let runtime = runtime_compiled(parts, &rt);
    let constants = constants(parts);
    let image = image(parts, opts, &rt);
    // The model's items: its description, its types and globals.
    let metadata = metadata::items(parts, &rt);
    let structs = structs::items(&parts.info, &rt, &opts.derives);
    let enums = enums::items(&parts.info, &rt, &opts.derives);
    let globals = globals::methods(&parts.info, &rt);
    // The kernels' launch methods: planned, spelled once, then each part written from that;
    // the tuned kernels' entry points after them, each spelled as its first variant's stub.
    let planned = plan(&parts.info);
    let entries = tuned::entries(parts);
    let entries_planned = tuned::planned(&entries);
    let all: Vec<_> = planned
        .iter()
        .cloned()
        .chain(entries_planned.iter().cloned())
        .collect();
    let spelled = types::spell(&all, &parts.info.enums, &rt);
    let bounds = arg_bounds::ArgBounds::new(&all, &spelled, &rt);
    let tuned_safe = |name: &str| opts.safe_kernels.contains(name);
    let tuners = tuned::tuners(&entries, &rt);
    let entry_points = tuned::entry_points(
        &entries,
        &entries_planned,
        &spelled[planned.len()..],
        &bounds.params[planned.len()..],
        &tuned_safe,
        &rt,
    );
    let untyped = docs::untyped_section(&parts.info.untyped);
    let safe = |name: &proc_macro2::Ident| opts.safe_kernels.contains(&name.to_string());
    let docs = docs::stub_docs(&planned, &spelled, &parts.targets, safe, &rt);
    let stubs = stubs::methods(&planned, &spelled, &bounds, &docs, opts, &rt);
    let templates = stubs::template_traits(&planned, &spelled, &rt);
    let arg_bounds = bounds.module(&rt);
    quote! {
        #(#attrs)*
        #default_doc
        ///
        #contract
        #untyped
        #vis mod #name {
            #![allow(
                dead_code,
                non_camel_case_types,
                non_snake_case,
                non_upper_case_globals,
                unused_imports,
                clippy::all,
                clippy::pedantic,
                clippy::undocumented_unsafe_blocks,
            )]
            #tracking
            #warnings
            #image
            #metadata
            #constants
            #handle
            #library
            #runtime
            impl Module {
                #stubs
                #entry_points
                #globals
                #extra
            }
            #tuners
            #structs
            #enums
            #templates
            #arg_bounds
            #items
        }
    }
}

/// `pub const NAME: TYPE = VALUE;` for each exported constant.
fn constants(parts: &BuiltModule) -> TokenStream {
    let items = parts.constants.iter().map(|c| {
        let name = format_ident!("{}", c.name);
        let ty = format_ident!("{}", c.rust_type);
        let value = proc_macro2::Literal::i128_unsuffixed(c.value);
        let doc = format!(
            " `{}` of module `{}` as its CUDA compiler evaluates it ({}).",
            c.name, parts.name, c.value
        );
        // A negative value is a unary minus on the literal.
        let value = if c.value < 0 {
            let magnitude = proc_macro2::Literal::i128_unsuffixed(-c.value);
            quote!(-#magnitude)
        } else {
            quote!(#value)
        };
        quote! {
            #[doc = #doc]
            pub const #name: #ty = #value;
        }
    });
    quote!(#(#items)*)
}

/// The runtime path as tokens.
pub(crate) fn runtime_tokens(opts: &CodegenOptions) -> TokenStream {
    let rt = &opts.runtime;
    quote!(#rt)
}

/// The build's warnings as compiler warnings at the macro (deprecation notes, the one way
/// a macro warns on stable Rust), the first few one by one, the rest counted.
fn warnings(parts: &BuiltModule, opts: &CodegenOptions) -> TokenStream {
    const SHOWN: usize = 24;
    if !opts.warn_in_code || parts.warnings.is_empty() {
        return quote!();
    }
    let mut notes: Vec<String> = parts.warnings.iter().take(SHOWN).cloned().collect();
    if parts.warnings.len() > SHOWN {
        notes.push(format!(
            "{} more warnings of module `{}` (a build script prints them all)",
            parts.warnings.len() - SHOWN,
            parts.name
        ));
    }
    let warnings = notes.into_iter().enumerate().map(|(i, note)| {
        proc_macro_warning::FormattedWarning::new_deprecated(
            format!("__kernel_build_warning_{i}"),
            note,
            proc_macro2::Span::call_site(),
        )
    });
    quote!(#(#warnings)*)
}

/// `option_env!` for every variable and `include_bytes!` for every tracked file.
fn tracking(parts: &BuiltModule, opts: &CodegenOptions) -> TokenStream {
    let vars = opts.track_inputs.iter().flatten();
    let env = vars.map(|var| {
        quote!(
            const _: ::core::option::Option<&str> = ::core::option_env!(#var);
        )
    });
    let files = parts
        .tracked_files
        .iter()
        .filter(|_| opts.track_inputs.is_some())
        .map(|path| {
            // A file of the crate is named from the crate's folder, as rustc sees it.
            let under = opts
                .source_root
                .as_deref()
                .and_then(|root| path.strip_prefix(root).ok());
            match under {
                Some(rel) => {
                    let rel = format!("/{}", rel.to_string_lossy());
                    quote!(
                        const _: &[u8] = ::core::include_bytes!(::core::concat!(
                            ::core::env!("CARGO_MANIFEST_DIR"),
                            #rel
                        ));
                    )
                }
                None => {
                    let lit = path_literal(path);
                    quote!(
                        const _: &[u8] = ::core::include_bytes!(#lit);
                    )
                }
            }
        });
    quote!(#(#env)* #(#files)*)
}

/// The 8-byte aligned embedded fatbin behind the label naming its module, or nothing without
/// device code. A build script's fatbin lies in `OUT_DIR` and is named from it.
fn image(parts: &BuiltModule, opts: &CodegenOptions, rt: &TokenStream) -> TokenStream {
    let Some(path) = &parts.fatbin_path else {
        return quote! {
            static IMAGE: ::core::option::Option<&[u8]> = ::core::option::Option::None;
        };
    };
    let file = match path.file_name() {
        Some(name) if opts.image_in_out_dir => {
            let name = format!("/{}", name.to_string_lossy());
            quote!(::core::concat!(::core::env!("OUT_DIR"), #name))
        }
        _ => {
            let lit = path_literal(path);
            quote!(#lit)
        }
    };
    let name = parts.name.as_str();
    let len = cuda_kernel_objects::label::header_len(name);
    quote! {
        static IMAGE: ::core::option::Option<&[u8]> = {
            static LABELLED: &#rt::__private::Labelled<[u8; #len], [u8]> =
                &#rt::__private::Labelled {
                    label: #rt::__private::label_header::<#len>(
                        #name,
                        ::core::include_bytes!(#file).len(),
                    ),
                    image: *::core::include_bytes!(#file),
                };
            ::core::option::Option::Some(&LABELLED.image)
        };
    }
}

/// `library()` and the `Library` handle; not for a module compiled at run time only, which
/// has no image to load before it knows the GPU. A module with a fallback has it whether or
/// not this build embeds an image, so that its API is the same without nvcc.
fn library(parts: &BuiltModule, rt: &TokenStream) -> TokenStream {
    if parts.runtime_source.as_ref().is_some_and(|s| !s.fallback) {
        return TokenStream::new();
    }
    quote! {
        /// Loads this module's code once for the whole process (later calls return the
        /// same): [`Library::module`] then gives the typed [`Module`] of any GPU's context
        /// without loading the code again.
        ///
        /// # Errors
        ///
        /// When the binary carries no device code (built without nvcc), or when the driver
        /// fails.
        pub fn library() -> ::core::result::Result<Library, #rt::Error> {
            ::core::result::Result::Ok(Library {
                inner: #rt::__private::load_library(&METADATA)?,
            })
        }

        /// This module's code loaded once for every context of the process.
        #[derive(Clone)]
        pub struct Library {
            inner: #rt::RawLibrary,
        }

        impl Library {
            /// The module in `gpu`'s context (its kernels resolved there once), as [`load`]
            /// gives it.
            ///
            /// # Errors
            ///
            /// When no image suits the device, or when the driver fails.
            pub fn module(&self, gpu: &#rt::Gpu) -> ::core::result::Result<Module, #rt::Error> {
                ::core::result::Result::Ok(Module {
                    inner: #rt::__private::library_module(gpu, &METADATA, &self.inner)?,
                })
            }
        }

    }
}

/// `load_with`, `compile` and `Options`, for a module that carries its source.
fn runtime_compiled(parts: &BuiltModule, rt: &TokenStream) -> TokenStream {
    if parts.runtime_source.is_none() {
        return TokenStream::new();
    }
    quote! {
        /// Defines and NVRTC options of one variant of this module: see [`load_with`].
        pub type Options<'a> = #rt::CompileOptions<'a>;

        /// Compiles this module's source with NVRTC for `gpu`'s architecture with
        /// `options`' defines (cached on disk, and loaded once per context and variant),
        /// checks that every kernel's compiled parameters match the stubs, and loads it.
        /// The stubs stay the same for every variant.
        ///
        /// # Errors
        ///
        /// `Error::NoNvrtc` without NVRTC, `Error::Compile` with NVRTC's log,
        /// `Error::LayoutMismatch` when a define changed a kernel's parameters, or a
        /// driver error.
        pub fn load_with(
            gpu: &#rt::Gpu,
            options: &Options<'_>,
        ) -> ::core::result::Result<Module, #rt::Error> {
            ::core::result::Result::Ok(Module {
                inner: #rt::__private::load_module_with(gpu, &METADATA, options)?,
            })
        }

        /// Compiles this module's source with NVRTC for `target` (`sm_90`, `compute_90`)
        /// without a GPU (through the disk cache, so a later [`load_with`] of the same
        /// variant on such a GPU compiles nothing), and checks every kernel's compiled
        /// parameters against the stubs.
        ///
        /// # Errors
        ///
        /// As [`load_with`], less the driver's.
        pub fn compile(
            target: &str,
            options: &Options<'_>,
        ) -> ::core::result::Result<#rt::ObjectCode, #rt::Error> {
            #rt::__private::compile_module(&METADATA, target, options)
        }
    }
}

/// `load` and the `Module` handle.
fn handle(rt: &TokenStream) -> TokenStream {
    quote! {
        /// Loads this module into `gpu`'s context (once per context) and resolves
        /// every kernel.
        ///
        /// # Errors
        ///
        /// When the binary carries no device code (built without nvcc), when no
        /// image in it suits the device, or when the driver fails.
        pub fn load(gpu: &#rt::Gpu) -> ::core::result::Result<Module, #rt::Error> {
            ::core::result::Result::Ok(Module {
                inner: #rt::__private::load_module(gpu, &METADATA)?,
            })
        }

        /// This module loaded into one context, launching on one stream: what
        /// [`load`] returns, with one method per kernel. A struct that keeps the loaded
        /// module names this type by its path, `<module>::Module`.
        ///
        /// Cheap to clone; [`Module::with_stream`] gives a handle launching on
        /// another stream of the same context, without loading anything again.
        #[derive(Clone)]
        pub struct Module {
            inner: #rt::__private::LoadedModule,
        }

        impl Module {
            /// A handle to the same loaded module that launches on `stream`, a stream of
            /// the device this module was loaded on (`gpu.new_stream()`), so that its
            /// kernels overlap work on other streams; nothing is loaded again, and this
            /// handle keeps launching on its own stream. The buffers' uses order the
            /// kernels with work on other streams, as on any stream. `load` of a `Gpu`
            /// handle made with `with_stream` gives the same.
            pub fn with_stream(
                &self,
                stream: &::std::sync::Arc<#rt::CudaStream>,
            ) -> Module {
                Module { inner: self.inner.with_stream(stream) }
            }

            /// The stream launches go to.
            pub fn stream(&self) -> &::std::sync::Arc<#rt::CudaStream> {
                self.inner.stream()
            }

            /// Whether the image the driver loaded for this GPU holds kernel `name` (its
            /// CUDA name, `axpy<float>` for an instantiation). A kernel declared inside
            /// `#if __CUDA_ARCH__ ...` may be compiled for some targets only; calling
            /// one this is `false` for returns `Error::KernelNotInImage`.
            pub fn has_kernel(&self, name: &str) -> bool {
                self.inner.has_kernel(name)
            }

            /// The by-name handle of kernel `name` (its CUDA name as `METADATA` lists it, or
            /// its symbol): how a kernel without a typed stub (the module's docs list them,
            /// with why) is launched, through `Kernel::launch` with arguments of exactly the
            /// sizes `METADATA` gives for its parameters.
            ///
            /// # Errors
            ///
            /// When the module has no kernel of that name, or the driver fails.
            pub fn by_name(&self, name: &str) -> ::core::result::Result<#rt::Kernel, #rt::Error> {
                self.inner.module().kernel(name)
            }
        }
    }
}

//! The expansion of `cuda_module!`: fill the build request from the macro's keys, build
//! through `cuda-kernel-build` (and its cache), check the Rust declarations, generate the
//! module; on errors, the library's stand-in module beside the `compile_error!`s so that
//! user code gets no secondary errors.

use std::path::PathBuf;

use proc_macro2::TokenStream;
use quote::quote;

use crate::check::check_declarations;
use crate::codegen::{self, CodegenOptions, Declared};
use crate::diagnostics::inline::InlinePlace;
use crate::error::Error;
use crate::model::built::BuiltModule;
use crate::model::request::{ModuleRequest, SourceInput};
use crate::pipeline::{Context, build_module, inline_display_name};

use input::{ModuleInput, Source};

mod errors;
mod input;

/// Expands one `cuda_module!` invocation (never panics; errors become `compile_error!`).
pub fn expand(tokens: TokenStream) -> TokenStream {
    match syn::parse2::<ModuleInput>(tokens) {
        Ok(input) => cuda_module(&input, None),
        Err(e) => e.to_compile_error(),
    }
}

/// Expands one `cuda_module!` invocation as the crate in `crate_dir` would, with nvcc or, when
/// `no_device_code`, without it (as `KERNEL_BUILD_NO_DEVICE_CODE=1` and docs.rs build): the
/// tests compare the two expansions of every module of the repository. The runtime is named
/// by the `crate` key, else `::cuda_kernel_runtime`.
pub fn expand_in(
    tokens: TokenStream,
    crate_dir: &std::path::Path,
    no_device_code: bool,
) -> TokenStream {
    match syn::parse2::<ModuleInput>(tokens) {
        Ok(input) => cuda_module(&input, Some((crate_dir, no_device_code))),
        Err(e) => e.to_compile_error(),
    }
}

/// Expands a parsed `cuda_module!` invocation; `place`: the crate folder and whether to build
/// without nvcc, instead of what the compiled crate and the environment say.
fn cuda_module(input: &ModuleInput, place: Option<(&std::path::Path, bool)>) -> TokenStream {
    let inline = inline_place(input);
    let outcome = outcome(input, place, inline.as_ref());
    expansion(outcome, inline.as_ref())
}

/// What one invocation comes to, failed or not: the module to generate, with the errors
/// around it.
struct Outcome {
    /// Why the module could not be built as asked (a key, the runtime's path, the build):
    /// reported before the module.
    failed: Option<syn::Error>,
    /// The module the user's code sees: the built one; when the build failed, its
    /// declarations read without nvcc (the stubs keep their types, so the build's error is
    /// the only one); when not even those can be read, the library's stand-in (the declared
    /// kernels accepting anything, so that the only errors the user sees are the real ones).
    module: BuiltModule,
    /// How codegen writes it.
    opts: CodegenOptions,
    /// Where the Rust declarations disagree with the built kernels: reported after the
    /// module.
    mismatched: Option<syn::Error>,
}

/// Builds the module the keys ask for (through the cache), and checks the Rust
/// declarations against it.
fn outcome(
    input: &ModuleInput,
    place: Option<(&std::path::Path, bool)>,
    inline: Option<&(InlinePlace, String)>,
) -> Outcome {
    let runtime = match (place, &input.runtime_path) {
        (Some(_), None) => Ok(crate::runtime_crate::default_path()),
        _ => super::runtime_path(input.runtime_path.as_ref(), input.name.span()),
    };
    let runtime = match runtime {
        Ok(path) => path,
        Err(e) => return stand_in(input, e),
    };
    let mut req = match request(input) {
        Ok(req) => req,
        Err(e) => return stand_in(input, e),
    };
    let mut cx = Context::default();
    if let Some((dir, no_device_code)) = place {
        req.base_dir = dir.to_path_buf();
        cx.no_device_code = no_device_code;
    }
    req.inline_origin = inline_origin(input, inline);
    let opts = options(input, &req, &runtime);
    let built = match build_module(&req, &cx) {
        Ok(mut built) => {
            if let Some((place, display)) = inline {
                for w in &mut built.warnings {
                    *w = place.relocate(w, display);
                }
                place.relocate_model(&mut built.info, display);
            }
            built
        }
        Err(e) => return unbuilt(input, &req, opts, &e),
    };
    let sigs: Vec<syn::Signature> = input.decls.iter().map(|d| d.sig.clone()).collect();
    let mismatched = check_declarations(&built.info, &sigs).err();
    Outcome {
        failed: None,
        module: built,
        opts,
        mismatched,
    }
}

/// The outcome of a failed build: its error, beside the module's declarations read without
/// nvcc (its stubs keep their types, so call sites type-check and the build's error is the
/// only one), or, when those cannot be read either, beside the stand-in.
fn unbuilt(input: &ModuleInput, req: &ModuleRequest, opts: CodegenOptions, e: &Error) -> Outcome {
    let error = errors::build_error(e, input);
    match declarations_alone(req) {
        Some(read) => Outcome {
            failed: Some(error),
            module: read,
            opts,
            mismatched: None,
        },
        None => stand_in(input, error),
    }
}

/// The tokens of an outcome: the build's errors, the module, the declarations' errors;
/// every error's locations in an inline source told in the Rust file.
fn expansion(outcome: Outcome, inline: Option<&(InlinePlace, String)>) -> TokenStream {
    let module = codegen::generate(&outcome.module, &outcome.opts);
    let [failed, mismatched] = [outcome.failed, outcome.mismatched].map(|e| {
        e.map(|e| match inline {
            Some((place, display)) => place.relocate_tokens(e.to_compile_error(), display),
            None => e.to_compile_error(),
        })
    });
    quote!(#failed #module #mismatched)
}

/// Where an inline source's lines lie in the Rust file (from its literal's span), with the
/// name messages give the source (`<inline k>`); `None` for files, or outside a compiler.
fn inline_place(input: &ModuleInput) -> Option<(InlinePlace, String)> {
    let Source::Inline(lit) = &input.source else {
        return None;
    };
    if !proc_macro::is_available() {
        return None;
    }
    let span = lit.span().unwrap();
    let place = InlinePlace::from_literal(
        &lit.token().to_string(),
        &lit.value(),
        &span.file(),
        span.line(),
        span.column(),
    )?;
    Some((place, inline_display_name(&input.name.to_string())))
}

/// The Rust file (absolute, for the tools that open it) and line an inline source's lines
/// are, when they are the file's lines one for one.
fn inline_origin(
    input: &ModuleInput,
    place: Option<&(InlinePlace, String)>,
) -> Option<(PathBuf, u32)> {
    let Source::Inline(lit) = &input.source else {
        return None;
    };
    let line = u32::try_from(place?.0.first_line_if_contiguous()?).ok()?;
    let file = lit.span().unwrap().local_file()?;
    let file = if file.is_absolute() {
        file
    } else {
        std::env::current_dir().ok()?.join(file)
    };
    Some((file, line))
}

/// The build request from the macro's keys, through the same validating setters as
/// `Build`'s.
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
    req.line_info = input.line_info;
    req.device_debug = input.device_debug;
    req.compress = input.compress;
    req.ptx_text = input.ptx_text;
    req.require_every_target = input.require_every_target;
    if let Some((_, mode)) = &input.link {
        req.link = *mode;
    }
    req.runtime = input.runtime;
    req.kernels = input
        .kernels
        .as_ref()
        .map(|list| list.iter().map(syn::LitStr::value).collect());
    for lit in &input.define {
        req.define_text(&lit.value())
            .map_err(|message| syn::Error::new(lit.span(), message))?;
    }
    req.rust_types = input
        .types
        .iter()
        .map(|l| crate::model::request::RustTypesFile {
            file: PathBuf::from(l.value()),
            module: None,
        })
        .collect();
    for lit in &input.derive {
        req.derive_text(&lit.value())
            .map_err(|message| syn::Error::new(lit.span(), message))?;
    }
    for lit in &input.constants {
        req.constant_text(&lit.value())
            .map_err(|message| syn::Error::new(lit.span(), message))?;
    }
    for t in &input.tunes {
        req.tune(t.request.clone())
            .map_err(|p| syn::Error::new(tune_span(t, p.at), p.message))?;
    }
    Ok(req)
}

/// Where a problem of a `tune` item is shown: at the part it is about.
fn tune_span(t: &input::Tune, at: crate::pipeline::tuned::TuneAt) -> proc_macro2::Span {
    use crate::pipeline::tuned::TuneAt;
    match at {
        TuneAt::Kernel => Some(t.name),
        TuneAt::Axis(a) => t.axes.get(a).map(|(s, _)| *s),
        TuneAt::Value(a, v) => t.axes.get(a).and_then(|(_, vs)| vs.get(v).copied()),
        TuneAt::Listed(i) => t.listed.get(i).copied(),
        TuneAt::Rule(which) => t.rules.iter().find(|(w, _)| *w == which).map(|(_, s)| *s),
    }
    .unwrap_or(t.name)
}

/// Codegen options: the request's, the module's visibility and attributes, the kernels
/// vouched for in `unsafe extern` blocks, the runtime's path, and tracking of every input
/// for rustc.
fn options(input: &ModuleInput, req: &ModuleRequest, runtime: &syn::Path) -> CodegenOptions {
    let mut opts = CodegenOptions::for_request(req);
    opts.runtime = runtime.clone();
    opts.vis = input.vis.clone();
    opts.attrs = input.attrs.clone();
    opts.safe_kernels = input
        .decls
        .iter()
        .filter(|d| d.safe)
        .map(|d| d.sig.ident.to_string())
        .collect();
    opts.track_inputs = Some(crate::env::tracked_names());
    opts.warn_in_code = true;
    opts
}

/// The module's declarations read without nvcc, after its build failed (nvcc's errors, a
/// missing toolkit). `None` when the declarations cannot be read either.
fn declarations_alone(req: &ModuleRequest) -> Option<BuiltModule> {
    let cx = Context {
        no_device_code: true,
        ..Context::default()
    };
    let mut read = build_module(req, &cx).ok()?;
    read.warnings.clear();
    Some(read)
}

/// The outcome of a module that could not be built nor read: `error`, and the library's
/// stand-in module.
fn stand_in(input: &ModuleInput, error: syn::Error) -> Outcome {
    let opts = CodegenOptions {
        vis: input.vis.clone(),
        attrs: input.attrs.clone(),
        unbuilt: input
            .decls
            .iter()
            .map(|d| Declared {
                sig: d.sig.clone(),
                safe: d.safe,
            })
            .collect(),
        ..CodegenOptions::default()
    };
    Outcome {
        failed: Some(error),
        module: codegen::stand_in(&input.name.to_string()),
        opts,
        mismatched: None,
    }
}

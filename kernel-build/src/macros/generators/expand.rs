//! The expansion of a generated-kernel macro: check the input, write the CUDA source with
//! `cuda-kernel-generate`, build it through the pipeline (cache, every target, verification),
//! and generate the module: the kernels' typed stubs plus one checked launcher per function.
//! Every error is reported at the literal or the Rust item it concerns.

use std::collections::BTreeSet;

use cuda_kernel_generate::{self as generate, Access, Dtype, Param};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::LitStr;

use super::input::{Body, ElemType, FieldValue, GenModule, GeneratorKind};
use super::launchers::{FnPlan, Instance};
use crate::codegen::CodegenOptions;
use crate::diagnostics::generators as msg;
use crate::pipeline::{Context, ModuleRequest, SourceInput, build_module};

/// Expands `elementwise!`, `reduction!` or `scan!` (never panics; errors become
/// `compile_error!`).
pub fn expand(kind: GeneratorKind, tokens: TokenStream) -> TokenStream {
    let module: GenModule = match syn::parse2(tokens) {
        Ok(m) => m,
        Err(e) => return e.to_compile_error(),
    };
    match expand_module(kind, &module) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}

fn expand_module(kind: GeneratorKind, module: &GenModule) -> syn::Result<TokenStream> {
    check(kind, module)?;
    let runtime = super::super::runtime_path(module.runtime_path.as_ref(), module.name.span())?;
    let (spec, order) = spec(kind, module);
    let generated = spec
        .source()
        .map_err(|errors| expression_errors(module, &errors))?;
    let mut req = ModuleRequest::new(
        module.name.to_string(),
        SourceInput::Inline {
            text: generated.source.clone(),
        },
    );
    req.archs = module
        .arch
        .as_ref()
        .map(|l| l.iter().map(LitStr::value).collect());
    req.flags = module.flags.iter().map(LitStr::value).collect();
    let (built, nvcc_errors) = match build_module(&req, &Context::default()) {
        Ok(built) => (built, None),
        Err(e) => {
            // nvcc's errors at their literals, beside the module read without nvcc, so that
            // call sites keep their types and add no errors of their own.
            let error = build_error(module, &generated, &e);
            let cx = Context {
                no_device_code: true,
                ..Context::default()
            };
            match build_module(&req, &cx) {
                Ok(mut read) => {
                    read.warnings.clear();
                    (read, Some(error))
                }
                Err(_) => return Err(error),
            }
        }
    };
    let mut plans: Vec<FnPlan<'_>> = module
        .fns
        .iter()
        .map(|item| FnPlan {
            kind,
            item,
            instances: Vec::new(),
        })
        .collect();
    for ((f, dtype), info) in order.into_iter().zip(generated.kernels) {
        plans[f].instances.push(Instance {
            dtype,
            entry_points: info.entry_points,
            width: info.width,
            unsafe_reason: info.unsafe_reason,
        });
    }
    if nvcc_errors.is_some() {
        // While nvcc rejects the module, its launchers stand in as safe functions: the
        // rejected text's error is the only one the user sees.
        for inst in plans.iter_mut().flat_map(|p| p.instances.iter_mut()) {
            inst.unsafe_reason = None;
        }
    }
    let mut opts = CodegenOptions::for_request(&req);
    opts.runtime = runtime;
    opts.vis = module.vis.clone();
    opts.attrs = module.attrs.clone();
    opts.track_inputs = Some(crate::env::tracked_names());
    opts.warn_in_code = true;
    opts.hidden_stubs = true;
    let module = super::launchers::module(&built, &opts, &plans);
    let errors = nvcc_errors.map(|e| e.to_compile_error());
    Ok(quote!(#errors #module))
}

/// The parts each function needs for its macro, and nothing it cannot take.
fn check(kind: GeneratorKind, module: &GenModule) -> syn::Result<()> {
    let mut errors: Option<syn::Error> = None;
    let mut push = |span: Span, message: String| {
        let e = syn::Error::new(span, message);
        match &mut errors {
            Some(all) => all.combine(e),
            None => errors = Some(e),
        }
    };
    let mut names = BTreeSet::new();
    for f in &module.fns {
        let name = f.name.to_string();
        if !names.insert(name.clone()) {
            push(
                f.name.span(),
                msg::signature(&name, "defined twice in this module"),
            );
        }
        let uses_generic = f.params.iter().any(|p| p.elem == ElemType::Generic)
            || f.output == Some(ElemType::Generic);
        if let Some((t, _)) = &f.generic
            && !uses_generic
        {
            push(
                t.span(),
                msg::signature(&name, &format!("no parameter has type `{t}`")),
            );
        }
        let (keys, required): (&[&str], &[&str]) = match kind {
            GeneratorKind::Elementwise => (&[], &[]),
            GeneratorKind::Reduction => (
                &["map", "reduce", "identity", "post"],
                &["map", "reduce", "identity"],
            ),
            GeneratorKind::Scan => (&["op", "identity", "exclusive"], &["op", "identity"]),
        };
        match (&f.body, kind) {
            (Body::Statement(_), GeneratorKind::Elementwise) => {}
            (Body::Statement(lit), _) => {
                push(lit.span(), msg::wrong_form(&name, kind.macro_name()))
            }
            (Body::Fields { brace, .. }, GeneratorKind::Elementwise) => {
                push(*brace, msg::wrong_form(&name, kind.macro_name()));
            }
            (Body::Fields { brace, fields }, _) => {
                for (key, value) in fields {
                    let k = key.to_string();
                    let flag = k == "exclusive";
                    let fits = matches!(value, FieldValue::Flag(_)) == flag;
                    if !keys.contains(&k.as_str()) || !fits {
                        push(key.span(), msg::unknown_part(&name, &k, keys));
                    }
                }
                for key in required {
                    if f.field(key).is_none() {
                        push(*brace, msg::missing_part(&name, key, kind.macro_name()));
                    }
                }
            }
        }
        match kind {
            GeneratorKind::Elementwise | GeneratorKind::Scan => {
                if f.output.is_some() {
                    push(
                        f.output_span,
                        msg::signature(&name, "this kernel writes its outputs and returns nothing"),
                    );
                }
            }
            GeneratorKind::Reduction => {
                if f.output.is_none() {
                    push(
                        f.name.span(),
                        msg::signature(&name, "a reduction returns its value: add `-> T`"),
                    );
                }
                for p in f.params.iter().filter(|p| p.access == Access::Out) {
                    push(
                        p.span,
                        msg::signature(
                            &name,
                            "a reduction reads its slices (`&[T]`) and returns its value",
                        ),
                    );
                }
            }
        }
        if kind == GeneratorKind::Scan {
            let shape = f.params.len() == 2
                && f.params[0].access == Access::In
                && f.params[1].access == Access::Out
                && f.params[0].elem == f.params[1].elem;
            if !shape {
                push(
                    f.name.span(),
                    msg::signature(
                        &name,
                        "a scan takes its input and its output of one element type: `(x: &[T], y: &mut [T])`",
                    ),
                );
            }
        }
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The generator's module, and for each of its kernels the function and instantiation.
fn spec(
    kind: GeneratorKind,
    module: &GenModule,
) -> (generate::Module, Vec<(usize, Option<Dtype>)>) {
    let mut kernels = Vec::new();
    let mut order = Vec::new();
    for (k, f) in module.fns.iter().enumerate() {
        for dtype in f.instances() {
            let name = match dtype {
                Some(d) => format!("{}_for_{}", f.name, d.rust_name()),
                None => format!("{}_kernel", f.name),
            };
            let label = f.name.to_string();
            let params: Vec<Param> = f
                .params
                .iter()
                .map(|p| Param::new(p.name.to_string(), p.elem.with(dtype), p.access))
                .collect();
            let text = |key: &str| f.field(key).map(LitStr::value).unwrap_or_default();
            let kernel = match kind {
                GeneratorKind::Elementwise => {
                    generate::Kernel::Elementwise(generate::Elementwise {
                        name,
                        label,
                        params,
                        body: match &f.body {
                            Body::Statement(lit) => lit.value(),
                            Body::Fields { .. } => String::new(),
                        },
                    })
                }
                GeneratorKind::Reduction => generate::Kernel::Reduction(generate::Reduction {
                    name,
                    label,
                    params,
                    output: f.output.unwrap_or(ElemType::Generic).with(dtype),
                    map: text("map"),
                    reduce: text("reduce"),
                    identity: text("identity"),
                    post: f.field("post").map(LitStr::value),
                }),
                GeneratorKind::Scan => generate::Kernel::Scan(generate::Scan {
                    name,
                    label,
                    dtype: params[0].dtype,
                    input: params[0].name.clone(),
                    output: params[1].name.clone(),
                    op: text("op"),
                    identity: text("identity"),
                    exclusive: f.flag("exclusive"),
                }),
            };
            kernels.push(kernel);
            order.push((k, dtype));
        }
    }
    (
        generate::Module {
            preamble: module.preamble.as_ref().map(LitStr::value),
            kernels,
        },
        order,
    )
}

/// The literal of a function's part (`body`, `map`, ...), or the function's name.
fn part_span(module: &GenModule, label: &str, part: &str) -> Span {
    if part == "preamble" {
        return module
            .preamble
            .as_ref()
            .map_or(module.name.span(), LitStr::span);
    }
    let Some(f) = module.fns.iter().find(|f| f.name == label) else {
        return module.name.span();
    };
    match (&f.body, part) {
        (Body::Statement(lit), "body") => lit.span(),
        _ => f.field(part).map_or(f.name.span(), LitStr::span),
    }
}

/// The generator's errors, each once, at its literal.
fn expression_errors(module: &GenModule, errors: &[generate::GenerateError]) -> syn::Error {
    let mut seen = BTreeSet::new();
    let mut all: Option<syn::Error> = None;
    for e in errors {
        if !seen.insert(e.to_string()) {
            continue;
        }
        let err = syn::Error::new(part_span(module, &e.kernel, e.part), e.to_string());
        match &mut all {
            Some(a) => a.combine(err),
            None => all = Some(err),
        }
    }
    all.unwrap_or_else(|| syn::Error::new(module.name.span(), "the generator failed"))
}

/// A build error: nvcc's complaints about a user's text at that text's literal (the
/// generator knows which lines of its source hold which part), anything else at the
/// module's name.
fn build_error(
    module: &GenModule,
    generated: &generate::Generated,
    error: &crate::error::Error,
) -> syn::Error {
    let crate::error::Error::NvccFailed { output, .. } = error else {
        return syn::Error::new(module.name.span(), crate::diagnostics::build::report(error));
    };
    // Each located line, with the context lines nvcc prints after it (the code, a caret).
    let mut parts: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut current: Option<usize> = None;
    for line in output.lines() {
        match generated.locate_message(line) {
            Some((kernel, part, message)) => {
                let k = parts
                    .iter()
                    .position(|(l, p, _)| l == kernel && p == part)
                    .unwrap_or_else(|| {
                        parts.push((kernel.to_owned(), part.to_owned(), Vec::new()));
                        parts.len() - 1
                    });
                if !parts[k].2.iter().any(|l| l == message) {
                    parts[k].2.push(message.to_owned());
                    current = Some(k);
                } else {
                    current = None;
                }
            }
            None if line.trim().is_empty()
                || line.contains("error detected")
                || line.contains("): ")
                || line.contains(": error") =>
            {
                current = None;
            }
            None => {
                if let Some(k) = current {
                    parts[k].2.push(line.to_owned());
                }
            }
        }
    }
    let mut all: Option<syn::Error> = None;
    for (label, part, lines) in &parts {
        let text = msg::compiler_rejects(label, part, &lines.join("\n"));
        let e = syn::Error::new(part_span(module, label, part), text);
        match &mut all {
            Some(a) => a.combine(e),
            None => all = Some(e),
        }
    }
    all.unwrap_or_else(|| {
        syn::Error::new(module.name.span(), crate::diagnostics::build::report(error))
    })
}

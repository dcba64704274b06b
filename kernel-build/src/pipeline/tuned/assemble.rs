//! The built module's tuned kernels: each planned variant matched to its kernel in the
//! verified model (or to what the compiler left out), the one signature the variants share,
//! the rules' integer parameters, and a warning per variant left out of some targets.

use super::resolve::{Resolved, ResolvedKernel};
use crate::diagnostics::tune as msg;
use crate::error::Error;
use crate::front::tuned::Instance;
use crate::model::built::BuiltModule;
use crate::model::request::ModuleRequest;
use crate::model::rust::{kernel_rust_name, method_names};
use crate::model::spelling::c_spelling;
use crate::model::{CType, Kernel, Scalar, TemplateArg, TunedKernel, TunedVariant};

/// Fills `built.tuned` from the planned kernels and adds the warnings of variants left out;
/// every problem at once.
pub(crate) fn assemble(
    req: &ModuleRequest,
    resolved: &Resolved,
    built: &mut BuiltModule,
) -> Result<(), Error> {
    let mut problems = Vec::new();
    let mut tuned = Vec::new();
    let methods = method_names(&built.info);
    for k in &resolved.kernels {
        match one(req, k, built, &methods) {
            Ok((t, warnings)) => {
                tuned.push(t);
                built.warnings.extend(warnings);
            }
            Err(mut p) => problems.append(&mut p),
        }
    }
    if !problems.is_empty() {
        return Err(Error::InvalidOption(problems.join("\n")));
    }
    built.tuned = tuned;
    Ok(())
}

fn one(
    req: &ModuleRequest,
    k: &ResolvedKernel,
    built: &BuiltModule,
    methods: &[String],
) -> Result<(TunedKernel, Vec<String>), Vec<String>> {
    let info = &built.info;
    let name = &k.kernel;
    let mut problems = Vec::new();
    let mut variants = Vec::new();
    let mut warnings = Vec::new();
    let mut kernels: Vec<(&str, &Kernel)> = Vec::new();
    for v in &k.variants {
        let found = match &v.instance {
            Some(inst) => info.kernels.iter().find(|kk| is_instance(kk, inst)),
            None => info
                .kernels
                .iter()
                .find(|kk| {
                    kk.template_args.is_empty() && qualified(kk) == name.trim_start_matches("::")
                })
                .or_else(|| {
                    info.kernels
                        .iter()
                        .find(|kk| kk.template_args.is_empty() && kk.base_name == *name)
                }),
        };
        let shown = v
            .instance
            .as_ref()
            .map_or_else(|| name.clone(), Instance::name);
        let left_out: Vec<(String, String)> = info
            .left_out
            .iter()
            .filter(|(inst, _, _)| *inst == shown)
            .map(|(_, arch, why)| (arch.clone(), why.clone()))
            .collect();
        if let Some((_, why)) = left_out.first() {
            let archs: Vec<String> = left_out.iter().map(|(a, _)| a.clone()).collect();
            warnings.push(msg::left_out(&req_name(req, k), &v.name, &archs, why));
        }
        match found {
            Some(kernel) => kernels.push((v.name.as_str(), kernel)),
            None if !left_out.is_empty() => {}
            None => problems.push(msg::untyped_variant(name, &v.name, &shown)),
        }
        variants.push(TunedVariant {
            name: v.name.clone(),
            values: v.values.clone(),
            ints: v.ints.clone(),
            kernel: found.map(|kk| kk.name.clone()),
            left_out,
        });
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let Some(&(first_name, first)) = kernels.first() else {
        let why: Vec<String> = variants
            .iter()
            .map(|v| {
                let reason = v.left_out.first().map_or("", |(_, w)| w.as_str());
                format!("`{}`: {reason}", v.name)
            })
            .collect();
        return Err(vec![msg::nothing_compiles(name, &why)]);
    };
    for &(other_name, other) in &kernels[1..] {
        let same = other.params.len() == first.params.len()
            && other
                .params
                .iter()
                .zip(&first.params)
                .all(|(a, b)| a.ty == b.ty);
        if !same {
            let at = first
                .params
                .iter()
                .zip(&other.params)
                .position(|(a, b)| a.ty != b.ty)
                .unwrap_or(first.params.len().min(other.params.len()));
            let param = first
                .params
                .get(at)
                .and_then(|p| p.name.clone())
                .unwrap_or_else(|| format!("{}", at + 1));
            problems.push(msg::signatures_differ(name, first_name, other_name, &param));
            break;
        }
    }
    for int in &k.ints {
        let Some(p) = first.params.iter().find(|p| p.name.as_deref() == Some(int)) else {
            continue;
        };
        if !is_integer(&p.ty) {
            for (which, rules) in [("grid", &k.grid), ("block", &k.block)] {
                if let Some(r) = rules.first() {
                    problems.push(msg::not_integer(name, which, &r.text, int, &p.written));
                    break;
                }
            }
        }
    }
    let method = kernel_rust_name(first);
    let entry = format!("{method}_tuned");
    if methods.contains(&entry) {
        problems.push(msg::method_taken(name, &entry));
    }
    if !problems.is_empty() {
        problems.dedup();
        return Err(problems);
    }
    Ok((
        TunedKernel {
            name: format!("{}::{method}", req.name),
            kernel: name.clone(),
            method,
            axes: k.axes.clone(),
            variants,
            grid: k.grid.clone(),
            block: k.block.clone(),
            shared: k.shared.clone(),
            ints: k.ints.clone(),
        },
        warnings,
    ))
}

/// What warnings call the tuned kernel: `module::kernel`.
fn req_name(req: &ModuleRequest, k: &ResolvedKernel) -> String {
    format!("{}::{}", req.name, k.kernel)
}

fn qualified(k: &Kernel) -> String {
    let mut parts = k.namespace.clone();
    parts.push(k.base_name.clone());
    parts.join("::")
}

/// Whether `k` is the instantiation `inst`: the same template and arguments (values
/// compared as integers, types as their C spelling).
fn is_instance(k: &Kernel, inst: &Instance) -> bool {
    if qualified(k) != inst.template.trim_start_matches("::")
        || k.template_args.len() != inst.args.len()
    {
        return false;
    }
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    k.template_args
        .iter()
        .zip(&inst.args)
        .all(|(a, b)| match a {
            TemplateArg::Value(shown) => {
                match (
                    super::request::int_value(shown),
                    super::request::int_value(b),
                ) {
                    (Some(x), Some(y)) => x == y,
                    _ => squeeze(shown) == squeeze(b),
                }
            }
            TemplateArg::Type(t) => squeeze(&c_spelling(t)) == squeeze(b),
        })
}

fn is_integer(t: &CType) -> bool {
    matches!(
        t,
        CType::Scalar(
            Scalar::I8
                | Scalar::Char
                | Scalar::I16
                | Scalar::I32
                | Scalar::I64
                | Scalar::U8
                | Scalar::U16
                | Scalar::U32
                | Scalar::U64
                | Scalar::Usize
                | Scalar::Isize
        )
    )
}

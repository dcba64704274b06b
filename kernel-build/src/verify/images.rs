//! Verification of a compiled fatbin against the declarations: every kernel of every
//! image (SASS and PTX) is declared, with exactly the `(offset, size)` parameter list
//! that the C layout predicts; every declared kernel is in at least one image (in
//! every image with `require_every_target`); every global has the predicted size.
//!
//! The images decide where a kernel is available: [`Kernel::images`](crate::model::Kernel::images) lists them.

use crate::diagnostics::{Diagnostics, front as msg};
use crate::model::{ImageFacts, ModuleInfo};
use cuda_kernel_objects::{EntryKind, Fatbin, Image};

use crate::front::names::resolve_symbols;
use crate::model::spelling::c_spelling;

/// What [`verify_with`] is given besides the model and the fatbin.
#[derive(Clone, Copy, Debug, Default)]
pub struct VerifyOptions<'a> {
    /// The user's source (display name, text), to locate kernels that no declaration
    /// the front end read covers.
    pub source: Option<(&'a str, &'a str)>,
    /// Every image must hold every kernel (a kernel missing from one is an error
    /// instead of a kernel available on some targets only).
    pub require_every_target: bool,
    /// The images are one file's of a module of several: a kernel in none of them is
    /// moved to [`ModuleInfo::elsewhere`] (another file may define it) instead of being
    /// an error.
    pub part_of_module: bool,
}

/// Resolves C++ symbols, fills [`Kernel::images`](crate::model::Kernel::images),
/// and checks every kernel's layout in every image; collects every mismatch.
pub fn verify(info: &mut ModuleInfo, fatbin: &Fatbin) -> Result<(), Diagnostics> {
    verify_with(info, fatbin, &VerifyOptions::default())
}

/// [`verify`] with options: the source text, and whether every image must hold every
/// kernel.
pub fn verify_with(
    info: &mut ModuleInfo,
    fatbin: &Fatbin,
    opts: &VerifyOptions<'_>,
) -> Result<(), Diagnostics> {
    let source = opts.source;
    let mut diags = Diagnostics::new();
    let mut images: Vec<(String, Image)> = Vec::new();
    for entry in fatbin
        .entries
        .iter()
        .filter(|e| matches!(e.kind, EntryKind::Elf | EntryKind::Ptx))
    {
        match entry.image() {
            Ok(image) => images.push((entry.target(), image)),
            Err(e) => diags.push(msg::image_unreadable(&entry.target(), &e.to_string())),
        }
    }
    if images.is_empty() && diags.is_empty() && !info.kernels.is_empty() {
        diags.push(msg::no_images());
    }
    let mut symbols: Vec<String> = Vec::new();
    for (_, image) in &images {
        for k in image.kernels() {
            if !symbols.contains(&k.symbol) {
                symbols.push(k.symbol.clone());
            }
        }
    }
    resolve_symbols(info, &symbols);
    // Tuned variants the compiler refused for some targets were left out of their images on
    // purpose (the build warns about each): never an error of `require_every_target`.
    let left_out: Vec<String> = info.left_out.iter().map(|(k, _, _)| k.clone()).collect();
    // A declared kernel whose layout differs from an image's is typed by the images alone.
    let mut degraded: Vec<(usize, crate::diagnostics::Diagnostic)> = Vec::new();
    for (index, kernel) in info
        .kernels
        .iter_mut()
        .enumerate()
        .filter(|(_, k)| !k.symbol.is_empty())
    {
        kernel.images.clear();
        let predicted: Vec<(u64, u64)> = kernel
            .params
            .iter()
            .map(|p| (p.layout.offset, p.layout.size))
            .collect();
        let sizes: Vec<(u64, u64)> = kernel
            .params
            .iter()
            .map(|p| (p.layout.size, p.layout.align))
            .collect();
        for (target, image) in &images {
            let Some(found) = image.kernels().iter().find(|k| k.symbol == kernel.symbol) else {
                if opts.require_every_target && !left_out.contains(&kernel.name) {
                    diags.push(
                        msg::kernel_missing(&kernel.name, &kernel.symbol, target)
                            .at(kernel.loc.clone()),
                    );
                }
                continue;
            };
            let actual = layout_of(found);
            // Equal, or over-aligned parameters placed for this target's bank position.
            let agrees = cuda_kernel_objects::param_layout_agrees(&sizes, &actual);
            if agrees {
                // Over-aligned parameters: the model records where the first image puts them.
                if kernel.images.is_empty() {
                    for (p, &(offset, _)) in kernel.params.iter_mut().zip(&actual) {
                        p.layout.offset = offset;
                    }
                }
                kernel.images.push(facts(target, found));
                continue;
            }
            if actual.len() != predicted.len() {
                let d = msg::param_count(&kernel.name, target, &predicted, &actual);
                degraded.push((index, d.at(kernel.loc.clone())));
            } else if let Some(i) = (0..actual.len()).find(|&i| predicted[i] != actual[i]) {
                let p = &kernel.params[i];
                let name = p.name.clone().unwrap_or_else(|| format!("#{i}"));
                let d = msg::param_layout(
                    &kernel.name,
                    &name,
                    &c_spelling(&p.ty),
                    target,
                    predicted[i],
                    actual[i],
                    &predicted,
                    &actual,
                );
                degraded.push((index, d.at(p.loc.clone().or_else(|| kernel.loc.clone()))));
            }
            kernel.images.push(facts(target, found));
        }
        if kernel.images.is_empty() && !images.is_empty() && opts.part_of_module {
            continue;
        }
        if kernel.images.is_empty() && !images.is_empty() && !opts.require_every_target {
            let targets: Vec<String> = images.iter().map(|(t, _)| t.clone()).collect();
            diags.push(
                msg::kernel_in_no_image(&kernel.name, &kernel.symbol, &targets)
                    .at(kernel.loc.clone()),
            );
        }
    }
    degraded.dedup_by_key(|(i, _)| *i);
    for (index, d) in degraded.into_iter().rev() {
        let k = info.kernels.remove(index);
        info.untyped.retain(|u| u.name != k.name);
        let mut u = crate::front::unread(k.name, k.symbol, &d, None);
        u.param_names = k.params.iter().map(|p| p.name.clone()).collect();
        info.untyped.push(u);
    }
    untyped_from_images(info, &images, source);
    if opts.part_of_module && !images.is_empty() {
        let (here, elsewhere): (Vec<_>, Vec<_>) = std::mem::take(&mut info.kernels)
            .into_iter()
            .partition(|k| k.symbol.is_empty() || !k.images.is_empty());
        info.kernels = here;
        info.elsewhere.extend(elsewhere);
    }
    for global in &info.globals {
        for (target, image) in &images {
            if let Some(g) = image.globals().iter().find(|g| g.symbol == global.symbol)
                && g.size != global.size
            {
                diags.push(
                    msg::global_size(&global.name, target, global.size, g.size)
                        .at(global.loc.clone()),
                );
            }
        }
    }
    diags.into_result()
}

/// What the device runtime's internal symbols carry: its source file's name, as nvcc
/// prefixes internal-linkage symbols (`__nv_static_<n>__<hash>_<len>_cuda_device_runtime_cu_…`).
const DEVICE_RUNTIME_UNIT: &str = "_cuda_device_runtime_cu_";

/// The first line of `text` where `ident` appears as a whole identifier followed by `(`.
fn locate_identifier(file: &str, text: &str, ident: &str) -> Option<crate::model::SourceLoc> {
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    for (n, line) in text.lines().enumerate() {
        let bytes = line.as_bytes();
        for (col, _) in line.match_indices(ident) {
            let before_ok = col == 0 || !is_ident(bytes[col - 1]);
            let rest = line[col + ident.len()..].trim_start();
            if before_ok && rest.starts_with('(') {
                return Some(crate::model::SourceLoc {
                    file: file.to_string(),
                    line: u32::try_from(n + 1).ok()?,
                    column: u32::try_from(col + 1).ok()?,
                });
            }
        }
    }
    None
}

/// A kernel's `(offset, size)` parameter list in an image, in parameter order.
fn layout_of(found: &cuda_kernel_objects::KernelImage) -> Vec<(u64, u64)> {
    let mut slots = found.params.clone();
    slots.sort_by_key(|s| s.ordinal);
    slots
        .iter()
        .map(|s| (u64::from(s.offset), u64::from(s.size)))
        .collect()
}

fn facts(target: &str, found: &cuda_kernel_objects::KernelImage) -> ImageFacts {
    ImageFacts {
        target: target.to_owned(),
        registers: found.registers,
        max_threads: found
            .max_threads
            .map(|[x, y, z]| x.saturating_mul(y).saturating_mul(z)),
    }
}

/// Every kernel of the images that no typed kernel covers goes into
/// [`ModuleInfo::untyped`], with its layout from the images and why it has no typed
/// declaration: the front end's reason for a declaration it could not read (matched by
/// name), or what the images and the source tell. Reasons without a kernel in any image
/// are dropped (noted in [`ModuleInfo::skipped`]).
fn untyped_from_images(
    info: &mut ModuleInfo,
    images: &[(String, Image)],
    source: Option<(&str, &str)>,
) {
    let reasons: Vec<crate::model::UntypedKernel> = info
        .untyped
        .iter()
        .filter(|u| u.params.is_empty() && u.images.is_empty())
        .cloned()
        .collect();
    info.untyped.retain(|u| !u.images.is_empty());
    let mut used = vec![false; reasons.len()];
    let mut runtime_kernels: Vec<&str> = Vec::new();
    for (target, image) in images {
        for k in image.kernels() {
            if info.kernels.iter().any(|d| d.symbol == k.symbol)
                || crate::compile::layouts::is_table_symbol(&k.symbol)
            {
                continue;
            }
            // The device runtime's own kernels (linked for dynamic parallelism): internal
            // symbols of its translation unit, not part of the module's API.
            if k.is_local && k.symbol.contains(DEVICE_RUNTIME_UNIT) {
                if !runtime_kernels.contains(&k.symbol.as_str()) {
                    runtime_kernels.push(&k.symbol);
                }
                continue;
            }
            if let Some(u) = info.untyped.iter_mut().find(|u| u.symbol == k.symbol) {
                u.images.push(facts(target, k));
                continue;
            }
            let demangled = crate::front::demangle::demangle(&k.symbol);
            let (name, base, param_types) = match &demangled {
                Some(d) if d.template_args.is_empty() => {
                    (d.name.clone(), d.name.clone(), d.params.clone())
                }
                Some(d) => (
                    format!("{}<{}>", d.name, d.template_args.join(", ")),
                    d.name.clone(),
                    d.params.clone(),
                ),
                None => (k.symbol.clone(), k.symbol.clone(), Vec::new()),
            };
            let bare = |n: &str| n.split('<').next().unwrap_or(n).to_owned();
            let reason = reasons.iter().enumerate().find(|(_, r)| {
                r.symbol == k.symbol || (r.symbol.is_empty() && bare(&r.name) == base)
            });
            let mut param_types = param_types;
            let (why, loc, param_names) = match reason {
                Some((i, r)) => {
                    used[i] = true;
                    if param_types.is_empty() && demangled.is_none() {
                        // An `extern "C"` kernel: the types as its declaration spells them.
                        param_types = r.param_types.clone();
                    }
                    (r.why.clone(), r.loc.clone(), r.param_names.clone())
                }
                None => {
                    let left_out = info.skipped.iter().find(|s| s.contains(&k.symbol));
                    let loc = source.and_then(|(file, text)| locate_identifier(file, text, &base));
                    let why = match left_out {
                        Some(line) => crate::front::readable(line),
                        None if name.contains("{lambda") => {
                            "it takes a closure (a lambda), which only host C++ can build".to_owned()
                        }
                        None if info.stopped.is_some() => {
                            msg::stopped_before(info.stopped.as_deref().unwrap_or_default())
                        }
                        None if demangled.is_none() => {
                            "declared where only the device compilation sees it (inside `#ifdef __CUDA_ARCH__`)".to_owned()
                        }
                        None => "no declaration the front end read names it (a kernel generated by code it does not follow)".to_owned(),
                    };
                    (why, loc, Vec::new())
                }
            };
            let params = layout_of(k);
            // Names read from a declaration of another arity (a pack) name nothing here.
            let param_names = if param_names.len() == params.len() {
                param_names
            } else {
                Vec::new()
            };
            info.untyped.push(crate::model::UntypedKernel {
                name,
                symbol: k.symbol.clone(),
                params: params
                    .into_iter()
                    .map(|(offset, size)| crate::model::Layout {
                        offset,
                        size,
                        align: 1,
                    })
                    .collect(),
                param_types,
                param_names,
                why,
                loc,
                images: vec![facts(target, k)],
            });
        }
    }
    if !runtime_kernels.is_empty() {
        info.skipped.push(format!(
            "{} kernel(s) of the CUDA device runtime (libcudadevrt, linked for kernels launched from device code) are in the images but not part of the module",
            runtime_kernels.len()
        ));
    }
    for (r, used) in reasons.into_iter().zip(used) {
        // One about a launched instantiation whose symbol no image holds is already
        // noted in `skipped`.
        if !used && r.symbol.is_empty() {
            let at = r.loc.as_ref().map(|l| format!("{l}: ")).unwrap_or_default();
            info.skipped.push(format!(
                "{at}kernel `{}` could not be read ({}) and no image holds a kernel of that name: left out",
                r.name, r.why
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::front::readable;

    #[test]
    fn launched_kernels_left_out_say_why_with_types_demangled() {
        let line = "<launch>:1:229: error: launched kernel `_Z1kIfEvT_` left out: unknown type \
                    `_ZN10flashinfer20BatchDecodeParamsMLAIfffiEE`";
        assert_eq!(
            readable(line),
            "unknown type `flashinfer::BatchDecodeParamsMLA<float, float, float, int>`"
        );
        assert_eq!(readable("something else"), "something else");
    }

    #[test]
    fn options_default_to_lenient_without_source() {
        let o = super::VerifyOptions::default();
        assert!(!o.require_every_target && o.source.is_none());
    }
}

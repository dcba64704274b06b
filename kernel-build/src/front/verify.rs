//! Verification of a compiled fatbin against the declarations: every kernel of every
//! image (SASS and PTX) is declared, with exactly the `(offset, size)` parameter list
//! that the C layout predicts; every declared kernel is in at least one image (in
//! every image with `require_every_target`); every global has the predicted size.
//!
//! The images decide where a kernel is available: [`Kernel::images`](crate::model::Kernel::images) lists them.

use crate::diagnostics::{Diagnostics, front as msg};
use crate::model::{ImageFacts, ModuleInfo};
use kernel_objects::{EntryKind, Fatbin, Image};

use super::names::resolve_symbols;
use super::types::c_spelling;

/// What [`verify_with`] is given besides the model and the fatbin.
///
/// ```
/// let o = kernel_build::__private::front::VerifyOptions::default();
/// assert!(!o.require_every_target && o.source.is_none());
/// ```
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
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use kernel_build::__private::front::{analyze, verify, FrontInput};
/// let mut info = analyze(&FrontInput::raw_only("k.cu", "extern \"C\" __global__ void k(int n) {}"))?;
/// let fatbin = kernel_objects::parse(&std::fs::read("k.fatbin")?)?;
/// verify(&mut info, &fatbin)?;
/// # Ok(()) }
/// ```
pub fn verify(info: &mut ModuleInfo, fatbin: &Fatbin) -> Result<(), Diagnostics> {
    verify_with(info, fatbin, &VerifyOptions::default())
}

/// [`verify`], with the user's source text (display name, text) to locate kernels
/// that only the device passes saw.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use kernel_build::__private::front::{analyze, verify_with_source, FrontInput};
/// let text = "extern \"C\" __global__ void k(int n) {}";
/// let mut info = analyze(&FrontInput::raw_only("k.cu", text))?;
/// let fatbin = kernel_objects::parse(&std::fs::read("k.fatbin")?)?;
/// verify_with_source(&mut info, &fatbin, Some(("k.cu", text)))?;
/// # Ok(()) }
/// ```
pub fn verify_with_source(
    info: &mut ModuleInfo,
    fatbin: &Fatbin,
    source: Option<(&str, &str)>,
) -> Result<(), Diagnostics> {
    let opts = VerifyOptions {
        source,
        ..VerifyOptions::default()
    };
    verify_with(info, fatbin, &opts)
}

/// [`verify`] with options: the source text, and whether every image must hold every
/// kernel.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use kernel_build::__private::front::{analyze, verify_with, FrontInput, VerifyOptions};
/// let mut info = analyze(&FrontInput::raw_only("k.cu", "extern \"C\" __global__ void k(int n) {}"))?;
/// let fatbin = kernel_objects::parse(&std::fs::read("k.fatbin")?)?;
/// verify_with(&mut info, &fatbin, &VerifyOptions { require_every_target: true, ..Default::default() })?;
/// let on: Vec<_> = info.kernels[0].images.iter().map(|i| i.target.as_str()).collect();
/// println!("k is compiled for {on:?}");
/// # Ok(()) }
/// ```
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
    if let Err(d) = resolve_symbols(info, &symbols) {
        diags.append(d);
    }
    // An `extern "C"` kernel that only the device passes saw would silently vanish
    // from the module: report it. (Mangled symbols may come from library headers.)
    for (target, image) in &images {
        for k in image.kernels() {
            let unmangled = !k.symbol.starts_with("_Z");
            if unmangled && !k.is_local && !info.kernels.iter().any(|d| d.symbol == k.symbol) {
                let loc = source.and_then(|(file, text)| locate_identifier(file, text, &k.symbol));
                diags.push(msg::kernel_hidden_from_host(&k.symbol, target).at(loc));
            }
        }
    }
    for kernel in info.kernels.iter_mut().filter(|k| !k.symbol.is_empty()) {
        kernel.images.clear();
        let predicted: Vec<(u64, u64)> = kernel
            .params
            .iter()
            .map(|p| (p.layout.offset, p.layout.size))
            .collect();
        for (target, image) in &images {
            let Some(found) = image.kernels().iter().find(|k| k.symbol == kernel.symbol) else {
                if opts.require_every_target {
                    diags.push(
                        msg::kernel_missing(&kernel.name, &kernel.symbol, target)
                            .at(kernel.loc.clone()),
                    );
                }
                continue;
            };
            let mut slots = found.params.clone();
            slots.sort_by_key(|s| s.ordinal);
            let actual: Vec<(u64, u64)> = slots
                .iter()
                .map(|s| (u64::from(s.offset), u64::from(s.size)))
                .collect();
            if actual.len() != predicted.len() {
                diags.push(
                    msg::param_count(&kernel.name, target, &predicted, &actual)
                        .at(kernel.loc.clone()),
                );
            } else {
                for ((p, want), got) in kernel.params.iter().zip(&predicted).zip(&actual) {
                    if want != got {
                        let name = p.name.clone().unwrap_or_else(|| {
                            format!(
                                "#{}",
                                kernel.params.iter().position(|q| q == p).unwrap_or(0)
                            )
                        });
                        let d = msg::param_layout(
                            &kernel.name,
                            &name,
                            &c_spelling(&p.ty),
                            target,
                            *want,
                            *got,
                            &predicted,
                            &actual,
                        );
                        diags.push(d.at(p.loc.clone().or_else(|| kernel.loc.clone())));
                    }
                }
            }
            kernel.images.push(ImageFacts {
                target: target.clone(),
                registers: found.registers,
                max_threads: found
                    .max_threads
                    .map(|[x, y, z]| x.saturating_mul(y).saturating_mul(z)),
            });
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

//! Where each build error is reported: at the literal it concerns (the source
//! text, the file path, an arch name), with the CUDA file:line in the message.

use super::input::{ModuleInput, Source};
use crate::diagnostics::build;
use crate::error::Error;

/// The `syn::Error` (possibly several combined) for a failed build.
pub(crate) fn build_error(error: &Error, input: &ModuleInput) -> syn::Error {
    let source_span = match &input.source {
        Source::Inline(lit) | Source::File(lit) => lit.span(),
        Source::Files(lits) => lits[0].span(),
    };
    match error {
        Error::Diagnostics(list) if matches!(input.source, Source::Files(_)) => {
            // Each problem at the literal of the file it is in.
            let mut all: Option<syn::Error> = None;
            for d in list.iter() {
                let span = d
                    .loc
                    .as_ref()
                    .and_then(|l| file_literal(input, &l.file))
                    .map_or(source_span, syn::LitStr::span);
                let e = d.to_syn_error(span);
                match &mut all {
                    Some(a) => a.combine(e),
                    None => all = Some(e),
                }
            }
            all.unwrap_or_else(|| list.to_syn_error(source_span))
        }
        Error::Diagnostics(list) => list.to_syn_error(source_span),
        Error::NvccFailed {
            status,
            output,
            location,
            hint,
            ..
        } => {
            let named = location.as_deref().and_then(|l| file_literal(input, l));
            let source_span = named.map_or(source_span, syn::LitStr::span);
            let what = match (&input.source, named) {
                (Source::Inline(_), _) => "the inline CUDA source",
                (Source::File(lit), _) => &format!("`{}`", lit.value()),
                (Source::Files(_), Some(lit)) => &format!("`{}`", lit.value()),
                (Source::Files(_), None) => "one of the module's files",
            };
            syn::Error::new(
                source_span,
                build::nvcc_failed_on(what, status, output, hint.as_deref()),
            )
        }
        Error::SharedTypes { problems } => {
            // Each problem at the literal of the Rust file it names.
            let mut all: Option<syn::Error> = None;
            for p in problems {
                let span = input
                    .types
                    .iter()
                    .find(|lit| p.starts_with(&format!("{}:", lit.value())))
                    .or(input.types.first())
                    .map_or(input.name.span(), syn::LitStr::span);
                let e = syn::Error::new(span, p);
                match &mut all {
                    Some(a) => a.combine(e),
                    None => all = Some(e),
                }
            }
            all.unwrap_or_else(|| syn::Error::new(input.name.span(), error.to_string()))
        }
        Error::UnknownArch { arch, .. } => {
            let span = input
                .arch
                .iter()
                .flatten()
                .find(|lit| lit.value() == *arch)
                .map_or(input.name.span(), syn::LitStr::span);
            syn::Error::new(span, error.to_string())
        }
        Error::NeedsRdc {
            file,
            symbol,
            source,
        } => {
            let span = file_literal(input, file).map_or(source_span, syn::LitStr::span);
            let output = match source.as_ref() {
                Error::NvccFailed { output, .. } => output.trim_end().to_owned(),
                other => other.to_string(),
            };
            let text = build::needs_rdc(file, symbol, build::Door::Macro);
            syn::Error::new(span, format!("{text}\n{output}"))
        }
        Error::NeedsDeviceRuntime { file, at, source } => {
            let span = file_literal(input, file).map_or(source_span, syn::LitStr::span);
            let output = match source.as_ref() {
                Error::NvccFailed { output, .. } => output.trim_end().to_owned(),
                other => other.to_string(),
            };
            let text = build::needs_device_runtime(at, build::Door::Macro);
            syn::Error::new(span, format!("{text}\n{output}"))
        }
        Error::DeviceLink { .. } | Error::LinkLibrary(_) => {
            let span = input
                .link
                .as_ref()
                .map_or(source_span, |(key, _)| key.span());
            syn::Error::new(span, build::report(error))
        }
        Error::Io { path, .. } => {
            let listed = match &input.source {
                Source::Files(lits) => lits.iter().find(|l| path.ends_with(l.value())),
                _ => None,
            };
            let span = match &input.source {
                Source::File(lit) if path.ends_with(lit.value()) => lit.span(),
                _ if listed.is_some() => listed.map_or(source_span, syn::LitStr::span),
                _ => input
                    .include
                    .iter()
                    .find(|lit| path.starts_with(lit.value()) || path.ends_with(lit.value()))
                    .map_or(input.name.span(), syn::LitStr::span),
            };
            syn::Error::new(span, io_message(error, &input.source))
        }
        Error::InvalidOption(message)
            if input
                .tunes
                .iter()
                .any(|t| message.contains(&crate::diagnostics::tune::about(&t.request.kernel))) =>
        {
            // A tuned kernel's problem: at the rule or axis it names, else at the item's name.
            let span = input
                .tunes
                .iter()
                .find(|t| message.contains(&crate::diagnostics::tune::about(&t.request.kernel)))
                .map_or(input.name.span(), |t| tune_part(t, message));
            syn::Error::new(span, message)
        }
        Error::InvalidOption(message) => {
            // A constant that cannot be exported: at its literal in `constants = [...]`.
            let span = input
                .constants
                .iter()
                .find(|lit| {
                    let value = lit.value();
                    let name = value.split(':').next().unwrap_or_default().trim();
                    message.contains(&format!("constant `{name}`"))
                })
                .map_or(input.name.span(), syn::LitStr::span);
            syn::Error::new(span, message)
        }
        other => syn::Error::new(input.name.span(), build::report(other)),
    }
}

/// The part of a `tune` item a message names: a rule (`the `grid` rule`), an axis
/// (``axis `B` ``), else the kernel's name.
fn tune_part(t: &super::input::Tune, message: &str) -> proc_macro2::Span {
    let first = message.lines().next().unwrap_or_default();
    for (which, span) in &t.rules {
        if first.contains(&format!("the `{which}` rule")) {
            return *span;
        }
    }
    for ((axis, _), (span, _)) in t.request.axes.iter().zip(&t.axes) {
        if first.contains(&format!("axis `{axis}`")) {
            return *span;
        }
    }
    t.name
}

/// The literal of `files = [...]` that names the file a message starts with.
fn file_literal<'a>(input: &'a ModuleInput, text: &str) -> Option<&'a syn::LitStr> {
    match &input.source {
        Source::Files(lits) => lits.iter().find(|l| {
            let v = l.value();
            text.starts_with(&v) || text.split(':').next().is_some_and(|f| f.ends_with(&v))
        }),
        _ => None,
    }
}

/// An I/O error; a missing source file is named as the user wrote it (not as an
/// absolute path), with the folder relative paths are resolved against.
fn io_message(error: &Error, source: &Source) -> String {
    let written = match (error, source) {
        (
            Error::Io {
                path, source: io, ..
            },
            Source::File(lit),
        ) if path.ends_with(lit.value()) => Some((lit, io)),
        (
            Error::Io {
                path, source: io, ..
            },
            Source::Files(lits),
        ) => lits
            .iter()
            .find(|l| path.ends_with(l.value()))
            .map(|lit| (lit, io)),
        _ => None,
    };
    match written {
        Some((lit, io)) => build::unreadable_source(&lit.value(), io),
        None => build::report(error),
    }
}

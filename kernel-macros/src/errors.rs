//! Where each build error is reported: at the literal it concerns (the source
//! text, the file path, an arch name), with the CUDA file:line in the message.

use crate::input::{ModuleInput, Source};
use kernel_build::Error;

/// The `syn::Error` (possibly several combined) for a failed build.
pub(crate) fn build_error(error: &Error, input: &ModuleInput) -> syn::Error {
    let source_span = match &input.source {
        Source::Inline(lit) | Source::File(lit) => lit.span(),
    };
    match error {
        Error::Diagnostics(list) => list.to_syn_error(source_span),
        Error::NvccFailed { status, output, .. } => {
            let what = match &input.source {
                Source::Inline(_) => "the inline CUDA source",
                Source::File(lit) => &format!("`{}`", lit.value()),
            };
            let text = format!(
                "nvcc failed to compile {what} ({status}):\n{}",
                output.trim_end()
            );
            syn::Error::new(source_span, text)
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
        Error::Io { path, .. } => {
            let span = match &input.source {
                Source::File(lit) if path.ends_with(lit.value()) => lit.span(),
                _ => input
                    .include
                    .iter()
                    .find(|lit| path.starts_with(lit.value()) || path.ends_with(lit.value()))
                    .map_or(input.name.span(), syn::LitStr::span),
            };
            syn::Error::new(span, io_message(error, &input.source))
        }
        other => syn::Error::new(input.name.span(), other.to_string()),
    }
}

/// An I/O error; a missing source file is named as the user wrote it (not as an
/// absolute path), with the folder relative paths are resolved against.
fn io_message(error: &Error, source: &Source) -> String {
    match (error, source) {
        (
            Error::Io {
                path, source: io, ..
            },
            Source::File(lit),
        ) if path.ends_with(lit.value()) => {
            let kind = match io.kind() {
                std::io::ErrorKind::NotFound => "no such file".to_owned(),
                _ => io.to_string(),
            };
            format!(
                "cannot read CUDA source `{}`: {kind} (paths are relative to the crate root, the folder of Cargo.toml)",
                lit.value()
            )
        }
        _ => error.to_string(),
    }
}

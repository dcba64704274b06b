//! `cuda-kernel-inspect fatbin FILE [--json]`: the entries of a raw fatbin and their kernels.

use std::fmt::Write;

use cuda_kernel_objects::{self as fatbin, Error as FatbinError};
use serde::Serialize;

use crate::args::{FileArgs, to_json};
use crate::report::EntryReport;

/// The JSON document.
#[derive(Serialize)]
struct FatbinReport {
    file: String,
    size: usize,
    entries: Vec<EntryReport>,
}

/// Runs the subcommand.
pub(crate) fn run(args: &FileArgs) -> Result<String, String> {
    let bytes = args.read()?;
    let parsed = fatbin::parse(&bytes).map_err(|e| match e {
        FatbinError::BadMagic { offset: 0, .. } if bytes.starts_with(b"\x7fELF") => format!(
            "`{}` is an ELF file, not a raw fatbin; try `cuda-kernel-inspect binary`",
            args.path.display()
        ),
        e => format!("`{}`: {e}", args.path.display()),
    })?;
    let report = FatbinReport {
        file: args.path.display().to_string(),
        size: bytes.len(),
        entries: parsed.entries.iter().map(EntryReport::new).collect(),
    };
    if args.json {
        return to_json(&report);
    }
    let mut out = String::new();
    _ = writeln!(
        out,
        "{}: {} bytes, {} entries",
        report.file,
        report.size,
        report.entries.len()
    );
    for entry in &report.entries {
        entry.write_text(&mut out, "");
    }
    Ok(out)
}

//! `cuda-kernel-inspect binary PATH [--json]`: the fatbins embedded in an executable or object
//! file, with the section each one sits in.

use std::fmt::Write;

use cuda_kernel_objects as fatbin;
use object::LittleEndian as LE;
use object::elf::{FileHeader64, SHT_NOBITS};
use object::read::elf::{FileHeader, SectionHeader};
use serde::Serialize;

use crate::report::EntryReport;
use crate::{FileArgs, to_json};

/// The JSON document.
#[derive(Serialize)]
struct BinaryReport {
    file: String,
    size: usize,
    modules: Vec<ModuleReport>,
}

/// One embedded fatbin.
#[derive(Serialize)]
struct ModuleReport {
    offset: usize,
    size: usize,
    section: Option<String>,
    targets: Vec<String>,
    entries: Vec<EntryReport>,
    error: Option<String>,
}

/// Runs the subcommand.
pub(crate) fn run(args: &FileArgs) -> Result<String, String> {
    let bytes = args.read()?;
    let sections = elf_sections(&bytes);
    let modules: Vec<ModuleReport> = fatbin::find_containers(&bytes)
        .into_iter()
        .map(|(offset, size)| {
            let section = sections
                .iter()
                .find(|(_, range)| range.start <= offset && offset + size <= range.end)
                .map(|(name, _)| name.clone());
            let (entries, error) = match fatbin::parse(&bytes[offset..offset + size]) {
                Ok(f) => (f.entries.iter().map(EntryReport::new).collect(), None),
                Err(e) => (Vec::new(), Some(e.to_string())),
            };
            let targets = entries
                .iter()
                .map(|e: &EntryReport| e.target().to_owned())
                .collect();
            ModuleReport {
                offset,
                size,
                section,
                targets,
                entries,
                error,
            }
        })
        .collect();
    let report = BinaryReport {
        file: args.path.display().to_string(),
        size: bytes.len(),
        modules,
    };
    if args.json {
        return to_json(&report);
    }
    let mut out = String::new();
    _ = writeln!(
        out,
        "{}: {} bytes, {} embedded fatbin(s)",
        report.file,
        report.size,
        report.modules.len()
    );
    for m in &report.modules {
        let section = m.section.as_deref().unwrap_or("no section");
        _ = writeln!(
            out,
            "module @{:#x} in {section}: {} bytes, targets {}",
            m.offset,
            m.size,
            m.targets.join(" ")
        );
        if let Some(error) = &m.error {
            _ = writeln!(out, "  error: {error}");
        }
        for entry in &m.entries {
            entry.write_text(&mut out, "  ");
        }
    }
    Ok(out)
}

/// Name and file range of each section with contents, when `bytes` is a 64-bit
/// little-endian ELF file; empty otherwise.
fn elf_sections(bytes: &[u8]) -> Vec<(String, std::ops::Range<usize>)> {
    let Ok(header) = FileHeader64::<LE>::parse(bytes) else {
        return Vec::new();
    };
    let Ok(sections) = header.sections(LE, bytes) else {
        return Vec::new();
    };
    sections
        .iter()
        .filter(|s| s.sh_type(LE) != SHT_NOBITS)
        .filter_map(|s| {
            let name = sections.section_name(LE, s).ok()?;
            let (start, size) = s.file_range(LE)?;
            let start = usize::try_from(start).ok()?;
            let end = start.checked_add(usize::try_from(size).ok()?)?;
            Some((String::from_utf8_lossy(name).into_owned(), start..end))
        })
        .collect()
}

//! The per-entry report shared by `fatbin` and `binary`: built once, printed as text or JSON.

use std::fmt::Write;

use cuda_kernel_objects::{Entry, EntryKind, GlobalImage, Image, KernelImage};
use serde::Serialize;

/// One fatbin entry.
#[derive(Serialize)]
pub(crate) struct EntryReport {
    offset: usize,
    kind: String,
    target: String,
    arch: u32,
    variant: &'static str,
    version: String,
    flags: u64,
    flag_names: Vec<String>,
    compression: &'static str,
    header_size: u32,
    payload_size: usize,
    image: Option<ImageReport>,
    error: Option<String>,
}

/// What the image of an entry holds.
#[derive(Serialize)]
struct ImageReport {
    format: &'static str,
    sm: Option<u32>,
    elf_type: Option<u16>,
    abi_version: Option<u8>,
    ptx_version: Option<String>,
    ptx_target: Option<String>,
    kernels: Vec<KernelImage>,
    globals: Vec<GlobalImage>,
}

impl EntryReport {
    /// Reads the entry's image (an unreadable image is reported, not fatal).
    pub(crate) fn new(entry: &Entry) -> EntryReport {
        let (image, error) = match entry.image() {
            Ok(image) => (Some(ImageReport::new(image)), None),
            Err(e) => (None, Some(e.to_string())),
        };
        EntryReport {
            offset: entry.offset,
            kind: match entry.kind {
                EntryKind::Ptx => "ptx".to_owned(),
                EntryKind::Elf => "elf".to_owned(),
                EntryKind::Other(k) => format!("kind{k}"),
            },
            target: entry.target(),
            arch: entry.arch,
            variant: match entry.variant.suffix() {
                "" => "generic",
                suffix => suffix,
            },
            version: format!("{}.{}", entry.version.0, entry.version.1),
            flags: entry.flags,
            flag_names: entry.flag_names(),
            compression: entry.compression.name(),
            header_size: entry.header_size,
            payload_size: entry.payload.len(),
            image,
            error,
        }
    }

    /// Whether the entry's payload is stored compressed.
    pub(crate) fn compressed(&self) -> bool {
        self.compression != "none"
    }

    /// The entry's target name.
    pub(crate) fn target(&self) -> &str {
        &self.target
    }

    /// Writes the entry and its kernels as indented text.
    pub(crate) fn write_text(&self, out: &mut String, indent: &str) {
        _ = writeln!(
            out,
            "{indent}entry @{:#x} {:<4} {:<12} version {}  flags {:#x} [{}]  compression {}  header {} B  payload {} B",
            self.offset,
            self.kind,
            self.target,
            self.version,
            self.flags,
            self.flag_names.join(", "),
            self.compression,
            self.header_size,
            self.payload_size
        );
        if let Some(error) = &self.error {
            _ = writeln!(out, "{indent}  error: {error}");
        }
        let Some(image) = &self.image else { return };
        for k in &image.kernels {
            let params: Vec<String> = k
                .params
                .iter()
                .map(|p| format!("({},{})", p.offset, p.size))
                .collect();
            _ = writeln!(
                out,
                "{indent}  kernel {}{}\n{indent}    params [{}]  param_size {}  registers {}  max_threads {}",
                k.symbol,
                if k.is_local { " (local)" } else { "" },
                params.join(" "),
                show(k.param_size),
                show(k.registers),
                k.max_threads
                    .map_or("-".to_owned(), |[x, y, z]| format!("{x}x{y}x{z}")),
            );
        }
        for g in &image.globals {
            let space = if g.constant {
                "__constant__"
            } else {
                "__device__"
            };
            _ = writeln!(out, "{indent}  global {} {space} {} B", g.symbol, g.size);
        }
    }
}

fn show(value: Option<u32>) -> String {
    value.map_or("-".to_owned(), |v| v.to_string())
}

impl ImageReport {
    fn new(image: Image) -> ImageReport {
        match image {
            Image::Cubin(c) => ImageReport {
                format: "cubin",
                sm: Some(c.sm),
                elf_type: Some(c.e_type),
                abi_version: Some(c.abi_version),
                ptx_version: None,
                ptx_target: None,
                kernels: c.kernels,
                globals: c.globals,
            },
            Image::Ptx(p) => ImageReport {
                format: "ptx",
                sm: None,
                elf_type: None,
                abi_version: None,
                ptx_version: Some(format!("{}.{}", p.version.0, p.version.1)),
                ptx_target: Some(p.target),
                kernels: p.kernels,
                globals: p.globals,
            },
        }
    }
}

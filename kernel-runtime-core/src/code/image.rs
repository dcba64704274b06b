//! A light look at a module image (fatbin, cubin or PTX text): which targets it holds and which
//! PTX ISA it declares, read with `cuda-kernel-objects`. Used only to explain load failures; never
//! trusted for anything else.

use cuda_kernel_objects::{CodeKind, EntryKind, parse, parse_cubin};

#[cfg(test)]
const FATBIN_MAGIC: u32 = 0xBA55_ED50;

/// What kind of image the bytes are, for loading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ImageKind {
    /// A fatbin container.
    Fatbin,
    /// A cubin (ELF).
    Cubin,
    /// PTX text (anything else).
    Ptx,
}

/// Targets and PTX ISA found in an image.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ImageInfo {
    /// `sm_XY` / `compute_XY` targets, in image order.
    pub targets: Vec<String>,
    /// The newest PTX ISA version, e.g. `9.0`.
    pub ptx_isa: Option<String>,
}

/// Classifies `bytes`: what is neither a fatbin nor an ELF is handed to the driver as PTX.
pub(crate) fn kind(bytes: &[u8]) -> ImageKind {
    match CodeKind::detect(bytes) {
        Some(CodeKind::Fatbin) => ImageKind::Fatbin,
        Some(CodeKind::Cubin | CodeKind::Object) => ImageKind::Cubin,
        _ => ImageKind::Ptx,
    }
}

/// Reads the targets of a fatbin, cubin or PTX image. Malformed input gives what could be read.
pub(crate) fn inspect(bytes: &[u8]) -> ImageInfo {
    let mut info = ImageInfo::default();
    match kind(bytes) {
        ImageKind::Fatbin => {
            let Ok(fatbin) = parse(bytes) else {
                return info;
            };
            for e in &fatbin.entries {
                match e.kind {
                    EntryKind::Elf => info.targets.push(e.target()),
                    EntryKind::Ptx => {
                        info.targets.push(e.target());
                        info.ptx_isa = Some(format!("{}.{}", e.version.0, e.version.1));
                    }
                    _ => {}
                }
            }
        }
        ImageKind::Cubin => {
            if let Ok(cubin) = parse_cubin(bytes) {
                info.targets.push(format!("sm_{}", cubin.sm));
            }
        }
        ImageKind::Ptx => {
            let text = String::from_utf8_lossy(bytes);
            for line in text.lines().map(str::trim) {
                if let Some(v) = line.strip_prefix(".version") {
                    info.ptx_isa = Some(v.trim().to_owned());
                } else if let Some(t) = line.strip_prefix(".target") {
                    let first = t.split(',').next().unwrap_or("").trim();
                    info.targets.push(first.replace("sm_", "compute_"));
                }
            }
        }
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One fatbin entry header with an empty payload.
    fn entry(kind: u16, arch: u32, flags: u64, isa: (u16, u16)) -> Vec<u8> {
        let mut e = vec![0u8; 64];
        e[0..2].copy_from_slice(&kind.to_le_bytes());
        e[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
        e[4..8].copy_from_slice(&64u32.to_le_bytes());
        e[0x18..0x1a].copy_from_slice(&isa.1.to_le_bytes());
        e[0x1a..0x1c].copy_from_slice(&isa.0.to_le_bytes());
        e[0x1c..0x20].copy_from_slice(&arch.to_le_bytes());
        e[0x28..0x30].copy_from_slice(&flags.to_le_bytes());
        e
    }

    fn container(entries: &[Vec<u8>]) -> Vec<u8> {
        let body: Vec<u8> = entries.concat();
        let mut b = Vec::new();
        b.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&16u16.to_le_bytes());
        b.extend_from_slice(&(body.len() as u64).to_le_bytes());
        b.extend_from_slice(&body);
        b
    }

    #[test]
    fn fatbin_targets_and_isa() {
        let b = container(&[
            entry(2, 80, 0x11, (1, 8)),
            entry(2, 90, 0x10_0011, (1, 8)),
            entry(1, 120, 0x11, (9, 0)),
        ]);
        assert_eq!(kind(&b), ImageKind::Fatbin);
        let info = inspect(&b);
        assert_eq!(info.targets, ["sm_80", "sm_90a", "compute_120"]);
        assert_eq!(info.ptx_isa.as_deref(), Some("9.0"));
    }

    #[test]
    fn truncated_fatbin_does_not_panic() {
        let b = container(&[entry(2, 75, 0x11, (1, 8))]);
        for cut in 0..b.len() {
            let _ = inspect(&b[..cut]);
        }
    }

    #[test]
    fn ptx_text() {
        let info = inspect(b"//\n.version 9.9\n.target sm_120\n.address_size 64\n");
        assert_eq!(info.targets, ["compute_120"]);
        assert_eq!(info.ptx_isa.as_deref(), Some("9.9"));
    }

    #[test]
    fn cubin_sm_from_a_real_cubin() {
        let cubin = include_bytes!("../../../kernel-build/tests/fixtures/small_sm90.cubin");
        assert_eq!(kind(cubin), ImageKind::Cubin);
        assert_eq!(inspect(cubin).targets, ["sm_90"]);
        let fatbin = include_bytes!("../../../kernel-build/tests/fixtures/small_zstd.fatbin");
        assert!(!inspect(fatbin).targets.is_empty());
    }
}

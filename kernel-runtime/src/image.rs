//! A light look at a module image (fatbin, cubin or PTX text): which targets it holds and which
//! PTX ISA it declares. Used only to explain load failures; never trusted for anything else.

/// Fatbin container magic (little-endian).
const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// Fatbin entry kinds.
const KIND_PTX: u16 = 1;
const KIND_ELF: u16 = 2;
/// Fatbin entry flags for arch-specific (`a`) and family-specific (`f`) targets.
const FLAG_ARCH_SPECIFIC: u64 = 0x10_0000;
const FLAG_FAMILY_SPECIFIC: u64 = 0x20_0000;

/// What kind of image the bytes are.
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

/// Classifies `bytes`.
pub(crate) fn kind(bytes: &[u8]) -> ImageKind {
    if read_u32(bytes, 0) == Some(FATBIN_MAGIC) {
        ImageKind::Fatbin
    } else if bytes.starts_with(b"\x7fELF") {
        ImageKind::Cubin
    } else {
        ImageKind::Ptx
    }
}

/// Reads the targets of a fatbin, cubin or PTX image. Malformed input gives what could be read.
pub(crate) fn inspect(bytes: &[u8]) -> ImageInfo {
    match kind(bytes) {
        ImageKind::Fatbin => fatbin(bytes),
        ImageKind::Cubin => {
            // EI_ABIVERSION 8 (CUDA 13): SM in bits 8..16 of e_flags; older: bits 0..8.
            let flags = read_u32(bytes, 0x30).unwrap_or(0);
            let sm = if bytes.get(8) == Some(&8) {
                (flags >> 8) & 0xff
            } else {
                flags & 0xff
            };
            ImageInfo {
                targets: vec![format!("sm_{sm}")],
                ptx_isa: None,
            }
        }
        ImageKind::Ptx => ptx(&String::from_utf8_lossy(bytes)),
    }
}

fn fatbin(bytes: &[u8]) -> ImageInfo {
    let mut info = ImageInfo::default();
    let header = usize::from(read_u16(bytes, 6).unwrap_or(16));
    let end = read_u64(bytes, 8)
        .map_or(0, |n| n.saturating_add(header as u64))
        .min(bytes.len() as u64) as usize;
    let mut off = header;
    while off + 64 <= end {
        let (Some(kind), Some(hsize), Some(psize)) = (
            read_u16(bytes, off),
            read_u32(bytes, off + 4),
            read_u64(bytes, off + 8),
        ) else {
            break;
        };
        let arch = read_u32(bytes, off + 0x1c).unwrap_or(0);
        let flags = read_u64(bytes, off + 0x28).unwrap_or(0);
        let suffix = if flags & FLAG_ARCH_SPECIFIC != 0 {
            "a"
        } else if flags & FLAG_FAMILY_SPECIFIC != 0 {
            "f"
        } else {
            ""
        };
        match kind {
            KIND_ELF => info.targets.push(format!("sm_{arch}{suffix}")),
            KIND_PTX => {
                info.targets.push(format!("compute_{arch}{suffix}"));
                let major = read_u16(bytes, off + 0x1a).unwrap_or(0);
                let minor = read_u16(bytes, off + 0x18).unwrap_or(0);
                info.ptx_isa = Some(format!("{major}.{minor}"));
            }
            _ => {}
        }
        let Some(next) = usize::try_from(psize)
            .ok()
            .and_then(|p| off.checked_add(hsize as usize)?.checked_add(p))
        else {
            break;
        };
        if hsize < 64 || next <= off {
            break;
        }
        off = next;
    }
    info
}

fn ptx(text: &str) -> ImageInfo {
    let mut info = ImageInfo::default();
    for line in text.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix(".version") {
            info.ptx_isa = Some(v.trim().to_owned());
        } else if let Some(t) = line.strip_prefix(".target") {
            let first = t.split(',').next().unwrap_or("").trim();
            info.targets.push(first.replace("sm_", "compute_"));
        }
    }
    info
}

fn read_u16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn read_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn read_u64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
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
            entry(1, 120, 0x8011, (9, 0)),
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
    fn cubin_sm_from_flags() {
        let mut elf = vec![0u8; 64];
        elf[..4].copy_from_slice(b"\x7fELF");
        elf[8] = 8;
        elf[0x30..0x34].copy_from_slice(&0x0600_5a04u32.to_le_bytes());
        assert_eq!(inspect(&elf).targets, ["sm_90"]);
    }
}

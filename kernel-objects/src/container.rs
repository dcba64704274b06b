//! The fatbin container: a 16-byte header, then entries back to back; several containers
//! may follow each other, separated by zero padding to 8 bytes.

use super::bytes::{end_within, u16_at, u32_at, u64_at};
use super::compress::decompress;
use super::entry::{ArchVariant, Compression, Entry, EntryKind};
use super::entry::{FLAG_ARCH_SPECIFIC, FLAG_FAMILY_SPECIFIC, FLAG_LZ4, FLAG_ZSTD};
use super::error::Error;

/// `0xBA55ED50`, the first four bytes (little-endian) of every container.
pub(crate) const MAGIC: u32 = 0xBA55_ED50;
/// Size of the container header.
const HEADER_SIZE: usize = 16;
/// Size of the fixed part of an entry header.
const ENTRY_HEADER_SIZE: u32 = 64;
/// The only entry-header version seen (`0x0101`).
const ENTRY_VERSION: u16 = 0x0101;

/// An entry header whose sizes have been checked against the container, payload not decoded.
#[derive(Clone, Debug)]
pub(crate) struct RawEntry {
    offset: usize,
    kind: u16,
    header_size: u32,
    payload: std::ops::Range<usize>,
    compressed_size: u32,
    version: (u16, u16),
    arch: u32,
    flags: u64,
    uncompressed_size: u64,
}

/// Reads the container starting at `start`: returns its end and its entry headers.
pub(crate) fn walk(bytes: &[u8], start: usize) -> Result<(usize, Vec<RawEntry>), Error> {
    let available = bytes.len().saturating_sub(start);
    let truncated = |needed: u64| Error::Truncated {
        what: "fatbin header",
        offset: start,
        needed,
        available,
    };
    let magic = u32_at(bytes, start).ok_or_else(|| truncated(HEADER_SIZE as u64))?;
    if magic != MAGIC {
        return Err(Error::BadMagic {
            offset: start,
            found: magic,
        });
    }
    let (Some(version), Some(header_size), Some(fat_size)) = (
        u16_at(bytes, start + 4),
        u16_at(bytes, start + 6),
        u64_at(bytes, start + 8),
    ) else {
        return Err(truncated(HEADER_SIZE as u64));
    };
    let bad = |detail: String| Error::BadContainer {
        offset: start,
        detail,
    };
    if version != 1 {
        return Err(bad(format!(
            "unsupported container version {version}, expected 1"
        )));
    }
    if usize::from(header_size) != HEADER_SIZE {
        return Err(bad(format!(
            "header size {header_size}, expected {HEADER_SIZE}"
        )));
    }
    let body = start + HEADER_SIZE;
    let end = end_within(bytes, body, fat_size)
        .ok_or_else(|| truncated(fat_size.saturating_add(HEADER_SIZE as u64)))?;
    let mut entries = Vec::new();
    let mut offset = body;
    while offset < end {
        let entry = entry_header(&bytes[..end], offset)?;
        offset = entry.payload.end;
        entries.push(entry);
    }
    Ok((end, entries))
}

/// Reads and checks the entry header at `offset`; `bytes` ends where the container ends.
fn entry_header(bytes: &[u8], offset: usize) -> Result<RawEntry, Error> {
    let available = bytes.len() - offset;
    if available < ENTRY_HEADER_SIZE as usize {
        return Err(Error::Truncated {
            what: "entry header",
            offset,
            needed: ENTRY_HEADER_SIZE.into(),
            available,
        });
    }
    // In bounds: 64 bytes are available from `offset`.
    let u16_ = |at: usize| u16_at(bytes, offset + at).unwrap_or_default();
    let u32_ = |at: usize| u32_at(bytes, offset + at).unwrap_or_default();
    let u64_ = |at: usize| u64_at(bytes, offset + at).unwrap_or_default();
    let bad = |detail: String| Error::BadEntry { offset, detail };
    let (kind, version, header_size, payload_size) = (u16_(0), u16_(2), u32_(4), u64_(8));
    if version != ENTRY_VERSION {
        return Err(bad(format!(
            "entry version {version:#06x}, expected 0x0101"
        )));
    }
    if header_size < ENTRY_HEADER_SIZE {
        return Err(bad(format!(
            "header size {header_size} is below {ENTRY_HEADER_SIZE}"
        )));
    }
    let payload_start = end_within(bytes, offset, header_size.into()).ok_or_else(|| {
        bad(format!(
            "header size {header_size} runs past the end of the container"
        ))
    })?;
    let payload_end =
        end_within(bytes, payload_start, payload_size).ok_or_else(|| Error::Truncated {
            what: "entry payload",
            offset: payload_start,
            needed: payload_size,
            available: bytes.len() - payload_start,
        })?;
    Ok(RawEntry {
        offset,
        kind,
        header_size,
        payload: payload_start..payload_end,
        compressed_size: u32_(0x10),
        version: (u16_(0x1a), u16_(0x18)),
        arch: u32_(0x1c),
        flags: u64_(0x28),
        uncompressed_size: u64_(0x38),
    })
}

/// How the entry's payload is stored, from its flags.
pub(crate) fn compression(raw: &RawEntry) -> Result<Compression, Error> {
    match (
        raw.flags & FLAG_ZSTD,
        raw.flags & FLAG_LZ4,
        raw.flags & 0x1000,
    ) {
        (0, 0, 0) => Ok(Compression::None),
        (_, 0, 0) => Ok(Compression::Zstd),
        (0, _, 0) => Ok(Compression::Lz4),
        _ => Err(Error::BadEntry {
            offset: raw.offset,
            detail: format!("unsupported compression flags in {:#x}", raw.flags),
        }),
    }
}

/// Decodes one checked entry: picks the variant and decompresses the payload.
pub(crate) fn decode(bytes: &[u8], raw: &RawEntry) -> Result<Entry, Error> {
    let bad = |detail: String| Error::BadEntry {
        offset: raw.offset,
        detail,
    };
    let variant = match (
        raw.flags & FLAG_ARCH_SPECIFIC,
        raw.flags & FLAG_FAMILY_SPECIFIC,
    ) {
        (0, 0) => ArchVariant::Generic,
        (_, 0) => ArchVariant::ArchSpecific,
        (0, _) => ArchVariant::FamilySpecific,
        _ => {
            return Err(bad(
                "both the arch-specific and family-specific flags are set".into(),
            ));
        }
    };
    let compression = compression(raw)?;
    let stored = &bytes[raw.payload.clone()];
    let kind = EntryKind::from_raw(raw.kind);
    let payload = match compression {
        Compression::None => stored.to_vec(),
        // LTO-IR and other kinds are kept as stored: nvcc 13 encodes LTO-IR entries
        // (flag 0x10000) so that they are not a plain compressed frame.
        _ if matches!(kind, EntryKind::Other(_)) => stored.to_vec(),
        codec => {
            let compressed = stored.get(..raw.compressed_size as usize).ok_or_else(|| {
                bad(format!(
                    "compressed size {} exceeds the stored payload of {} bytes",
                    raw.compressed_size,
                    stored.len()
                ))
            })?;
            decompress(codec, compressed, raw.uncompressed_size, raw.offset)?
        }
    };
    Ok(Entry {
        offset: raw.offset,
        kind,
        arch: raw.arch,
        variant,
        version: raw.version,
        flags: raw.flags,
        header_size: raw.header_size,
        compression,
        payload,
    })
}

/// Where the next container may start after one that ends at `end`: the 8-byte aligned
/// position past its zero padding, or `None` when only zeros (or nothing) follow.
pub(crate) fn next_start(bytes: &[u8], end: usize) -> Result<Option<usize>, Error> {
    let rest = &bytes[end..];
    match rest.iter().position(|&b| b != 0) {
        None => Ok(None),
        Some(pos) => {
            let at = end + pos;
            if at.is_multiple_of(8) && u32_at(bytes, at) == Some(MAGIC) {
                Ok(Some(at))
            } else {
                Err(Error::TrailingData { offset: at })
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A container with one uncompressed entry of `kind` holding `payload`.
    pub(crate) fn container(kind: u16, flags: u64, payload: &[u8]) -> Vec<u8> {
        let mut entry = vec![0u8; 64];
        entry[0..2].copy_from_slice(&kind.to_le_bytes());
        entry[2..4].copy_from_slice(&ENTRY_VERSION.to_le_bytes());
        entry[4..8].copy_from_slice(&64u32.to_le_bytes());
        entry[8..16].copy_from_slice(&(payload.len() as u64).to_le_bytes());
        entry[0x18..0x1a].copy_from_slice(&8u16.to_le_bytes());
        entry[0x1a..0x1c].copy_from_slice(&1u16.to_le_bytes());
        entry[0x1c..0x20].copy_from_slice(&80u32.to_le_bytes());
        entry[0x28..0x30].copy_from_slice(&flags.to_le_bytes());
        entry.extend_from_slice(payload);
        let mut out = MAGIC.to_le_bytes().to_vec();
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&16u16.to_le_bytes());
        out.extend_from_slice(&(entry.len() as u64).to_le_bytes());
        out.extend_from_slice(&entry);
        out
    }

    #[test]
    fn walks_one_entry() {
        let bytes = container(2, 0x11, &[1, 2, 3, 4, 5, 6, 7, 8]);
        let (end, entries) = walk(&bytes, 0).unwrap();
        assert_eq!(end, bytes.len());
        let e = decode(&bytes, &entries[0]).unwrap();
        assert_eq!(
            (e.offset, e.kind, e.arch, e.version),
            (16, EntryKind::Elf, 80, (1, 8))
        );
        assert_eq!(e.payload, [1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn lying_sizes_are_errors() {
        let mut bytes = container(2, 0x11, &[0; 8]);
        bytes[16 + 8] = 9; // payload size 9 > the 8 stored bytes
        assert!(matches!(
            walk(&bytes, 0),
            Err(Error::Truncated {
                what: "entry payload",
                ..
            })
        ));
        let mut bytes = container(2, 0x11, &[0; 8]);
        bytes[8] = 0xff; // fat_size past the end
        assert!(matches!(
            walk(&bytes, 0),
            Err(Error::Truncated {
                what: "fatbin header",
                ..
            })
        ));
        let mut bytes = container(2, 0x11, &[0; 8]);
        bytes[16 + 4] = 8; // entry header size 8 < 64
        assert!(matches!(
            walk(&bytes, 0),
            Err(Error::BadEntry { offset: 16, .. })
        ));
    }

    #[test]
    fn conflicting_flags_are_errors() {
        let bytes = container(2, 0x11 | FLAG_ARCH_SPECIFIC | FLAG_FAMILY_SPECIFIC, &[0; 8]);
        let (_, entries) = walk(&bytes, 0).unwrap();
        assert!(decode(&bytes, &entries[0]).is_err());
        let bytes = container(2, 0x11 | FLAG_ZSTD | FLAG_LZ4, &[0; 8]);
        let (_, entries) = walk(&bytes, 0).unwrap();
        assert!(decode(&bytes, &entries[0]).is_err());
    }

    #[test]
    fn padding_and_trailing_data() {
        let mut bytes = container(2, 0x11, &[0; 8]);
        let end = bytes.len();
        bytes.extend_from_slice(&[0; 8]);
        assert_eq!(next_start(&bytes, end), Ok(None));
        bytes.push(7);
        assert_eq!(
            next_start(&bytes, end),
            Err(Error::TrailingData { offset: end + 8 })
        );
    }
}

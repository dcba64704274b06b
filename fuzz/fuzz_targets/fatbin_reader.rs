//! Fuzz target: the fatbin reader on arbitrary bytes, read as a fatbin (every entry's image
//! and kernels), as a file with embedded fatbins, as a cubin and as PTX text. Any panic,
//! overflow or runaway allocation is a bug.
//!
//! Structure-aware step: when the input parses as a fatbin, variants that byte mutation
//! rarely reaches are read too: one container and one entry header size field rewritten
//! with a lying value, and one entry's decompressed payload (out of the mutator's reach
//! behind zstd or LZ4) truncated, bit-flipped, and with an ELF size field lying. Which
//! entry, field, offset and value come from the input's last 8 bytes (see [`Rng::new`]).
#![no_main]

use cuda_kernel_objects::{self as fatbin, Entry};
use libfuzzer_sys::fuzz_target;

/// Container header size fields, as `(offset, width)`: header size, body size.
const CONTAINER_SIZES: [(usize, usize); 2] = [(6, 2), (8, 8)];
/// Entry header size fields: header size, payload size, compressed and uncompressed size.
const ENTRY_SIZES: [(usize, usize); 4] = [(4, 4), (8, 8), (0x10, 4), (0x38, 8)];
/// ELF64 header: program and section table offsets, entry sizes and counts, name index.
const ELF_HEADER_SIZES: [(usize, usize); 7] = [
    (0x20, 8),
    (0x28, 8),
    (0x36, 2),
    (0x38, 2),
    (0x3a, 2),
    (0x3c, 2),
    (0x3e, 2),
];
/// ELF64 section header: name, offset, size, link, info, entry size.
const SECTION_SIZES: [(usize, usize); 6] = [
    (0, 4),
    (0x18, 8),
    (0x20, 8),
    (0x28, 4),
    (0x2c, 4),
    (0x38, 8),
];

fuzz_target!(|data: &[u8]| {
    let parsed = read_fatbin(data);
    for (offset, len) in fatbin::find_containers(data) {
        assert!(offset + len <= data.len(), "container range out of bounds");
    }
    let _ = fatbin::parse_cubin(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = fatbin::parse_ptx(text);
    }
    if let Some(parsed) = parsed {
        let mut rng = Rng::new(data);
        if let Some(&(start, _)) = rng.pick(&fatbin::find_containers(data)) {
            let _ = read_fatbin(&rng.lie_in(data, start, &CONTAINER_SIZES));
        }
        if let Some(entry) = rng.pick(&parsed.entries) {
            let _ = read_fatbin(&rng.lie_in(data, entry.offset, &ENTRY_SIZES));
            read_payload_variants(entry, &mut rng);
        }
    }
});

/// Reads `bytes` as a fatbin, and every entry's image; returns the fatbin if it parsed.
fn read_fatbin(bytes: &[u8]) -> Option<fatbin::Fatbin> {
    let parsed = fatbin::parse(bytes).ok()?;
    for entry in &parsed.entries {
        let _ = entry.target();
        let _ = entry.flag_names();
        read_image(entry);
    }
    Some(parsed)
}

/// Reads an entry's image: every kernel's parameter layout and the globals.
fn read_image(entry: &Entry) {
    if let Ok(image) = entry.image() {
        for kernel in image.kernels() {
            let _ = kernel
                .params
                .iter()
                .map(|p| u64::from(p.offset) + u64::from(p.size))
                .max();
        }
        let _ = image.globals().len();
    }
}

/// Reads `entry` with its decompressed payload truncated, bit-flipped, and with one ELF
/// header or section header size field lying.
fn read_payload_variants(entry: &Entry, rng: &mut Rng) {
    let payload = &entry.payload;
    let with = |payload: Vec<u8>| Entry {
        payload,
        ..entry.clone()
    };
    let cut = rng.below(payload.len() + 1);
    read_image(&with(payload[..cut].to_vec()));
    if !payload.is_empty() {
        let mut flipped = payload.clone();
        let bit = rng.below(payload.len() * 8);
        flipped[bit / 8] ^= 1 << (bit % 8);
        read_image(&with(flipped));
    }
    read_image(&with(rng.lie_in(payload, 0, &ELF_HEADER_SIZES)));
    let table = field(payload, 0x28, 8).and_then(|v| usize::try_from(v).ok());
    let count = field(payload, 0x3c, 2).unwrap_or(0) as usize;
    if let Some(table) = table.filter(|_| count > 0) {
        let section = table.saturating_add(rng.below(count).saturating_mul(64));
        read_image(&with(rng.lie_in(payload, section, &SECTION_SIZES)));
    }
}

/// The little-endian field of `width` bytes at `at`, if in bounds.
fn field(bytes: &[u8], at: usize, width: usize) -> Option<u64> {
    let slice = bytes.get(at..at.checked_add(width)?)?;
    let mut word = [0u8; 8];
    word[..width].copy_from_slice(slice);
    Some(u64::from_le_bytes(word))
}

/// A splitmix64 stream.
struct Rng(u64);

impl Rng {
    /// Seeded with the input's last 8 bytes: in a fatbin they are padding or the end of
    /// the last payload, so the fuzzer steers the choices there without breaking the
    /// structure, and mutations elsewhere keep them (no noise in the coverage signal).
    fn new(data: &[u8]) -> Self {
        let mut tail = [0u8; 8];
        let last = &data[data.len().saturating_sub(8)..];
        tail[..last.len()].copy_from_slice(last);
        Rng(u64::from_le_bytes(tail))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }

    /// A copy of `bytes` with one of `fields` (relative to `base`) rewritten to a lying
    /// value: zero, off by one, doubled, all ones, a power of two, or random.
    fn lie_in(&mut self, bytes: &[u8], base: usize, fields: &[(usize, usize)]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        let Some(&(at, width)) = self.pick(fields) else {
            return out;
        };
        let at = base.saturating_add(at);
        let Some(real) = field(bytes, at, width) else {
            return out;
        };
        let value = match self.next() % 7 {
            0 => 0,
            1 => real.wrapping_add(1),
            2 => real.wrapping_sub(1),
            3 => real.wrapping_mul(2),
            4 => u64::MAX,
            5 => 1 << (self.next() % 64),
            _ => self.next(),
        };
        out[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
        out
    }
}

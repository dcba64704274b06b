//! Decompression of entry payloads (Zstandard frames, LZ4 blocks) with bounded output.

use std::io::Read;

use super::entry::Compression;
use super::error::Error;

/// The largest decompressed payload accepted (256 MiB); larger declared sizes are errors.
pub const MAX_PAYLOAD_SIZE: u64 = 256 << 20;

/// The most an LZ4 block can expand: every 255-byte run costs at least one input byte.
const LZ4_MAX_RATIO: u64 = 255;

/// Decompresses `input` to exactly `expected` bytes; `offset` names the entry in errors.
///
/// Memory is bounded: `expected` must be non-zero and at most [`MAX_PAYLOAD_SIZE`], an LZ4
/// block is refused up front when `expected` exceeds what its length could produce, and the
/// Zstandard decoder stops reading one byte past `expected`.
pub(crate) fn decompress(
    codec: Compression,
    input: &[u8],
    expected: u64,
    offset: usize,
) -> Result<Vec<u8>, Error> {
    let name = codec.name();
    let fail = |detail: String| Error::Decompress {
        offset,
        codec: name,
        detail,
    };
    if expected == 0 {
        return Err(fail(
            "compressed entry declares an uncompressed size of 0".into(),
        ));
    }
    if expected > MAX_PAYLOAD_SIZE {
        return Err(fail(format!(
            "declared uncompressed size {expected} exceeds the limit of {MAX_PAYLOAD_SIZE} bytes"
        )));
    }
    let out = match codec {
        Compression::None => input.to_vec(),
        Compression::Lz4 => lz4(input, expected).map_err(fail)?,
        Compression::Zstd => zstd(input, expected).map_err(fail)?,
    };
    if out.len() as u64 != expected {
        return Err(fail(format!(
            "decoded {} bytes, the header declares {expected}",
            out.len()
        )));
    }
    Ok(out)
}

fn lz4(input: &[u8], expected: u64) -> Result<Vec<u8>, String> {
    if expected > (input.len() as u64).saturating_mul(LZ4_MAX_RATIO) {
        return Err(format!(
            "{} compressed bytes cannot hold the declared {expected} bytes",
            input.len()
        ));
    }
    // Bounded by MAX_PAYLOAD_SIZE and by the ratio check above.
    let mut out = vec![0u8; expected as usize];
    let n = lz4_flex::block::decompress_into(input, &mut out).map_err(|e| e.to_string())?;
    out.truncate(n);
    Ok(out)
}

fn zstd(input: &[u8], expected: u64) -> Result<Vec<u8>, String> {
    let decoder = ruzstd::decoding::StreamingDecoder::new(input).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    decoder
        .take(expected + 1)
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lz4_round_trip_and_size_checks() {
        let data: Vec<u8> = (0..4000u32).map(|i| (i % 7) as u8).collect();
        let packed = lz4_flex::block::compress(&data);
        assert_eq!(
            decompress(Compression::Lz4, &packed, 4000, 0).unwrap(),
            data
        );
        let short = decompress(Compression::Lz4, &packed, 3999, 16).unwrap_err();
        assert!(matches!(
            short,
            Error::Decompress {
                offset: 16,
                codec: "lz4",
                ..
            }
        ));
        let impossible = decompress(Compression::Lz4, &packed[..2], 4000, 0).unwrap_err();
        assert!(impossible.to_string().contains("cannot hold"));
    }

    #[test]
    fn zstd_stops_at_the_declared_size() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 13) as u8).collect();
        let frame = ruzstd::encoding::compress_to_vec(
            data.as_slice(),
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        assert_eq!(
            decompress(Compression::Zstd, &frame, 5000, 0).unwrap(),
            data
        );
        let err = decompress(Compression::Zstd, &frame, 10, 8).unwrap_err();
        assert!(err.to_string().contains("declares 10"), "{err}");
    }

    #[test]
    fn declared_sizes_are_bounded() {
        assert!(decompress(Compression::Zstd, &[], 0, 0).is_err());
        let err = decompress(Compression::Zstd, &[0; 4], MAX_PAYLOAD_SIZE + 1, 0).unwrap_err();
        assert!(err.to_string().contains("limit"));
        assert!(decompress(Compression::Zstd, &[1, 2, 3, 4, 5], 10, 0).is_err());
    }
}

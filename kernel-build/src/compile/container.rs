//! One fatbin container holding the entries of several: how a file compiled in one nvcc run
//! per virtual architecture gets the one container the driver loads.
//!
//! A container is a 16-byte header (magic, version 1, header size 16, the size of what
//! follows) and its entries back to back, each entry self-contained (its own header, sizes
//! and compressed payload). nvcc compiling several targets in one run writes exactly the
//! entries it writes for each target alone, one after another under one header; joining
//! the runs' containers the same way gives that container again, byte for byte, without
//! decompressing or compressing anything (nvFatbin, which this replaced, compressed every
//! entry a second time, on one thread, after the last run).

use crate::error::Error;
use std::path::Path;

/// `0xBA55ED50`, the first four bytes (little-endian) of every container.
const MAGIC: u32 = 0xBA55_ED50;
/// Size of the container header.
const HEADER: usize = 16;

/// One container holding, in order, every entry of `parts` (each a file nvcc wrote: its
/// path, for errors, and its bytes). Each part holds one container or several separated by
/// zero padding, as nvcc writes them.
pub(crate) fn join(parts: &[(&Path, &[u8])]) -> Result<Vec<u8>, Error> {
    let mut body = Vec::new();
    for (path, bytes) in parts {
        let bad = |offset: usize, detail: String| Error::Fatbin {
            path: path.to_path_buf(),
            source: cuda_kernel_objects::Error::BadContainer { offset, detail },
        };
        let mut at = 0;
        while at < bytes.len() {
            let field = |from: usize, len: usize| {
                bytes
                    .get(at + from..at + from + len)
                    .map(|b| b.iter().rev().fold(0u64, |v, &x| (v << 8) | u64::from(x)))
            };
            if field(0, 4) != Some(u64::from(MAGIC)) {
                return Err(bad(at, "no fatbin container here".into()));
            }
            if field(4, 2) != Some(1) || field(6, 2) != Some(HEADER as u64) {
                return Err(bad(at, "not a version 1 container header".into()));
            }
            let size = field(8, 8).unwrap_or(u64::MAX);
            let end = usize::try_from(size)
                .ok()
                .and_then(|s| (at + HEADER).checked_add(s))
                .filter(|&end| end <= bytes.len())
                .ok_or_else(|| bad(at, format!("declares {size} bytes past its end")))?;
            if !size.is_multiple_of(8) {
                // The next part's entries would lose their 8-byte alignment.
                return Err(bad(at, format!("holds {size} bytes, not a multiple of 8")));
            }
            body.extend_from_slice(&bytes[at + HEADER..end]);
            at = end + bytes[end..].iter().take_while(|&&b| b == 0).count();
        }
    }
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&(HEADER as u16).to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A container of entries, each an opaque 8-byte-multiple block.
    fn container(entries: &[&[u8]]) -> Vec<u8> {
        let body: Vec<u8> = entries.concat();
        let mut c = MAGIC.to_le_bytes().to_vec();
        c.extend_from_slice(&1u16.to_le_bytes());
        c.extend_from_slice(&16u16.to_le_bytes());
        c.extend_from_slice(&(body.len() as u64).to_le_bytes());
        c.extend_from_slice(&body);
        c
    }

    #[test]
    fn the_entries_of_every_part_go_under_one_header_in_order() {
        let (a, b, c) = ([1u8; 8], [2u8; 16], [3u8; 8]);
        let first = container(&[&a]);
        let mut second = container(&[&b]);
        // A part of two containers, zero padding between.
        second.extend_from_slice(&[0; 8]);
        second.extend_from_slice(&container(&[&c]));
        let p = Path::new("x.fatbin");
        let joined = join(&[(p, &first), (p, &second)]).unwrap();
        assert_eq!(joined, container(&[&a, &b, &c]));
        assert_eq!(join(&[]).unwrap(), container(&[]));
    }

    #[test]
    fn what_is_not_a_container_is_an_error_naming_the_file() {
        let p = Path::new("dir/compute_90.fatbin");
        let err = |bytes: &[u8]| {
            let e = join(&[(p, bytes)]).unwrap_err();
            let why = std::error::Error::source(&e).map(ToString::to_string);
            format!("{e}: {}", why.unwrap_or_default())
        };
        assert!(err(b"not a fatbin at all").contains("dir/compute_90.fatbin"));
        let mut short = container(&[&[1u8; 8]]);
        short.truncate(20);
        assert!(err(&short).contains("past its end"), "{}", err(&short));
        let odd = container(&[&[1u8; 5]]);
        assert!(err(&odd).contains("not a multiple of 8"), "{}", err(&odd));
        let mut version = container(&[&[1u8; 8]]);
        version[4] = 2;
        assert!(err(&version).contains("version 1"));
        let mut trailing = container(&[&[1u8; 8]]);
        trailing.extend_from_slice(&[0, 0, 7]);
        assert!(err(&trailing).contains("no fatbin container"));
    }
}

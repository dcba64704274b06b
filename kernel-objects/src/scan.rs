//! Finding fatbin containers embedded in arbitrary files (executables, host objects).

use super::container::{MAGIC, walk};

/// Finds the fatbin containers inside `bytes`, as `(offset, length)` pairs in file order.
///
/// Candidates are 8-byte aligned positions holding the magic; a candidate counts only
/// if its container header and every entry header in it are consistent (payloads are
/// not decompressed). Scanning resumes after each container found, so containers
/// stored back to back are reported one by one.
///
/// ```
/// // Any byte string is fine: a plain text file holds no container.
/// assert!(cuda_kernel_objects::find_containers(b"no fatbin in here").is_empty());
/// ```
pub fn find_containers(bytes: &[u8]) -> Vec<(usize, usize)> {
    let magic = MAGIC.to_le_bytes();
    let mut found = Vec::new();
    let mut at = 0usize;
    while let Some(window) = bytes.get(at..at.saturating_add(4)) {
        if window == magic
            && let Ok((end, entries)) = walk(bytes, at)
            && !entries.is_empty()
        {
            found.push((at, end - at));
            at = end.next_multiple_of(8);
            continue;
        }
        at += 8;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::tests::container;

    #[test]
    fn finds_aligned_containers_and_skips_fakes() {
        let one = container(2, 0x11, &[7; 16]);
        let mut file = vec![0xAA; 24];
        file.extend_from_slice(&MAGIC.to_le_bytes()); // a bare magic with a bad header
        file.extend_from_slice(&[0xAA; 4]);
        let first = file.len();
        file.extend_from_slice(&one);
        let second = file.len();
        file.extend_from_slice(&one);
        file.extend_from_slice(&[0xAA; 3]);
        file.extend_from_slice(&one); // misaligned: not reported
        assert_eq!(
            find_containers(&file),
            [(first, one.len()), (second, one.len())]
        );
    }
}

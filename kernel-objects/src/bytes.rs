//! Bounds-checked little-endian reads; every read returns `None` instead of panicking.

/// `N` bytes at `offset`, or `None` past the end (or on offset overflow).
fn array<const N: usize>(bytes: &[u8], offset: usize) -> Option<[u8; N]> {
    bytes.get(offset..offset.checked_add(N)?)?.try_into().ok()
}

/// The `u16` at `offset`.
pub(crate) fn u16_at(bytes: &[u8], offset: usize) -> Option<u16> {
    array(bytes, offset).map(u16::from_le_bytes)
}

/// The `u32` at `offset`.
pub(crate) fn u32_at(bytes: &[u8], offset: usize) -> Option<u32> {
    array(bytes, offset).map(u32::from_le_bytes)
}

/// The `u64` at `offset`.
pub(crate) fn u64_at(bytes: &[u8], offset: usize) -> Option<u64> {
    array(bytes, offset).map(u64::from_le_bytes)
}

/// `offset + len` as an in-bounds end index of `bytes`, or `None`.
pub(crate) fn end_within(bytes: &[u8], offset: usize, len: u64) -> Option<usize> {
    let end = offset.checked_add(usize::try_from(len).ok()?)?;
    (end <= bytes.len()).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_and_refuses_past_the_end() {
        let b = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(u16_at(&b, 0), Some(0x0201));
        assert_eq!(u32_at(&b, 5), Some(0x0908_0706));
        assert_eq!(u64_at(&b, 1), Some(0x0908_0706_0504_0302));
        assert_eq!(u32_at(&b, 6), None);
        assert_eq!(u64_at(&b, usize::MAX), None);
    }

    #[test]
    fn end_within_checks_overflow_and_bounds() {
        let b = [0u8; 16];
        assert_eq!(end_within(&b, 8, 8), Some(16));
        assert_eq!(end_within(&b, 8, 9), None);
        assert_eq!(end_within(&b, usize::MAX, 1), None);
        assert_eq!(end_within(&b, 0, u64::MAX), None);
    }
}

//! Where the compiler puts kernel parameters: each at its alignment, in order, in a buffer
//! that itself lies in constant bank 0 at an offset of the architecture's (0x210 on sm_90).
//! A parameter aligned to more than the buffer's own 16 bytes (a `CUtensorMap`, aligned to
//! 128; a struct holding one, as CUTLASS's Hopper kernels take) is aligned in the bank, so
//! its offset from the buffer's start depends on the target: 112 on sm_90 for a first
//! parameter of 128-byte alignment. An image's layout agrees with a prediction when every
//! size is the same, every parameter aligned to at most 16 bytes is where the prediction
//! puts it after the one before, and every over-aligned one is the first 16-byte boundary
//! from there plus less than its alignment, all of them at offsets one bank position
//! explains.

/// The alignment of the parameter buffer's start in the constant bank.
const BUFFER_ALIGN: u64 = 16;

/// Whether an image's `(offset, size)` parameter list is the one `(size, align)` per
/// parameter predicts.
///
/// ```
/// use cuda_kernel_objects::param_layout_agrees;
/// // A 128-byte-aligned CUtensorMap first, then a pointer, as sm_90 places them.
/// assert!(param_layout_agrees(&[(128, 128), (8, 8)], &[(112, 128), (240, 8)]));
/// assert!(!param_layout_agrees(&[(4, 4), (8, 8)], &[(0, 4), (4, 8)]));
/// ```
pub fn param_layout_agrees(params: &[(u64, u64)], image: &[(u64, u64)]) -> bool {
    if params.len() != image.len() {
        return false;
    }
    let mut end = 0u64;
    // The bank position's residue modulo the largest alignment seen so far.
    let mut base: Option<(u64, u64)> = None;
    for (&(size, align), &(offset, got)) in params.iter().zip(image) {
        let align = align.max(1);
        if size != got {
            return false;
        }
        if align <= BUFFER_ALIGN {
            if offset != end.next_multiple_of(align) {
                return false;
            }
        } else {
            let from = end.next_multiple_of(BUFFER_ALIGN);
            if offset < from || offset - from >= align || !offset.is_multiple_of(BUFFER_ALIGN) {
                return false;
            }
            // (bank + offset) % align == 0 for one bank position for every such parameter.
            let residue = (align - offset % align) % align;
            match base {
                Some((a, r)) => {
                    let m = a.min(align);
                    if residue % m != r % m {
                        return false;
                    }
                    if align > a {
                        base = Some((align, residue));
                    }
                }
                None => base = Some((align, residue)),
            }
        }
        end = offset + size;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::param_layout_agrees as agrees;

    #[test]
    fn ordinary_parameters_sit_at_their_alignment() {
        assert!(agrees(
            &[(8, 8), (4, 4), (4, 4)],
            &[(0, 8), (8, 4), (12, 4)]
        ));
        assert!(!agrees(&[(8, 8), (4, 4)], &[(0, 8), (12, 4)]));
        assert!(!agrees(&[(8, 8)], &[(0, 4)]));
        assert!(!agrees(&[(8, 8)], &[]));
    }

    #[test]
    fn over_aligned_parameters_follow_the_bank_position() {
        // sm_90: the buffer at 0x210 of the bank; a 128-aligned map first lands at 112.
        assert!(agrees(
            &[(128, 128), (8, 8), (4, 4)],
            &[(112, 128), (240, 8), (248, 4)]
        ));
        // The same kernel's sm_80 image (buffer at 0x160): 32.
        assert!(agrees(&[(128, 128), (8, 8)], &[(32, 128), (160, 8)]));
        // Not at a 16-byte boundary, or a whole alignment past it: no bank explains it.
        assert!(!agrees(&[(128, 128)], &[(120, 128)]));
        assert!(!agrees(&[(128, 128)], &[(128, 128)]));
        // Two maps: the second must be 128 past a position the first one's bank explains.
        assert!(agrees(&[(128, 128), (128, 128)], &[(112, 128), (240, 128)]));
        assert!(!agrees(
            &[(128, 128), (8, 8), (128, 128)],
            &[(112, 128), (240, 8), (256, 128)]
        ));
    }
}

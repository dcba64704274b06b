//! The rules of `cuTensorMapEncodeTiled` and `cuTensorMapEncodeIm2col`, checked before the
//! driver sees a descriptor: each broken rule is a [`TensorMapError`] that says which
//! dimension and which limit.

use crate::error::{Swizzle, TensorMapError};

/// Interleaved layouts (`NC/8HWC8`-style tensors): rank 3 or more.
///
/// ```
/// assert_eq!(cuda_kernel_runtime::Interleave::default(), cuda_kernel_runtime::Interleave::None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Interleave {
    /// Not interleaved.
    #[default]
    None,
    /// 16-byte interleave.
    B16,
    /// 32-byte interleave (the global address 32-byte aligned, swizzle `B32`).
    B32,
}

/// What the rules look at.
pub(super) struct Shape<'a> {
    pub addr: u64,
    pub buffer_bytes: u64,
    pub elem: u64,
    pub dims: &'a [u64],
    /// Bytes between consecutive indices of dimensions 1.. (rank - 1 entries).
    pub strides: &'a [u64],
    pub layout: Layout<'a>,
    pub element_strides: &'a [u32],
    pub interleave: Interleave,
    pub swizzle: Swizzle,
}

/// What one copy moves: a box of the tensor, or a column of pixels (im2col).
pub(super) enum Layout<'a> {
    /// `cuTensorMapEncodeTiled`: the box, innermost first.
    Tiled { box_dims: &'a [u32] },
    /// `cuTensorMapEncodeIm2col`: the pixel box's corners (spatial dimensions, W first) and
    /// what one copy loads.
    Im2col {
        lower: &'a [i32],
        upper: &'a [i32],
        channels: u32,
        pixels: u32,
    },
}

/// Checks every rule, in the order the driver's documentation lists them.
pub(super) fn check(s: &Shape<'_>) -> Result<(), TensorMapError> {
    let rank = s.dims.len();
    let interleaved = s.interleave != Interleave::None;
    let inner = match s.layout {
        Layout::Tiled { box_dims } => {
            if rank == 0 || rank > 5 || (interleaved && rank < 3) {
                return Err(TensorMapError::Rank { rank });
            }
            lengths("box", box_dims.len(), rank, rank)?;
            box_dims[0]
        }
        Layout::Im2col {
            lower,
            upper,
            channels,
            ..
        } => {
            if !(3..=5).contains(&rank) {
                return Err(TensorMapError::Im2colRank { rank });
            }
            lengths("lower corner", lower.len(), rank - 2, rank)?;
            lengths("upper corner", upper.len(), rank - 2, rank)?;
            channels
        }
    };
    lengths("strides", s.strides.len(), rank - 1, rank)?;
    lengths("element strides", s.element_strides.len(), rank, rank)?;
    let align = if s.interleave == Interleave::B32 {
        32
    } else {
        16
    };
    if !s.addr.is_multiple_of(align) {
        return Err(TensorMapError::Address {
            addr: s.addr,
            align,
        });
    }
    for (dim, &value) in s.dims.iter().enumerate() {
        if value == 0 || value > 1 << 32 {
            return Err(TensorMapError::Dim { dim, value });
        }
    }
    let mut extent = s.dims[0] * s.elem;
    for (i, &bytes) in s.strides.iter().enumerate() {
        let dim = i + 1;
        if !bytes.is_multiple_of(16) || bytes >= 1 << 40 {
            return Err(TensorMapError::Stride { dim, bytes });
        }
        if bytes < extent {
            return Err(TensorMapError::StrideOverlap {
                dim,
                bytes,
                below: extent,
            });
        }
        extent = bytes * s.dims[dim];
    }
    // The last element lies at the sum of the largest index times its stride.
    let needed = s.dims[0] * s.elem
        + s.strides
            .iter()
            .zip(&s.dims[1..])
            .map(|(&st, &d)| st * (d - 1))
            .sum::<u64>();
    if needed > s.buffer_bytes {
        return Err(TensorMapError::OutOfBuffer {
            needed,
            len: s.buffer_bytes,
        });
    }
    match s.layout {
        Layout::Tiled { box_dims } => check_box(box_dims)?,
        Layout::Im2col {
            lower,
            upper,
            channels,
            pixels,
        } => check_pixel_box(s.dims, lower, upper, channels, pixels)?,
    }
    let inner = u64::from(inner) * s.elem;
    if !interleaved && !inner.is_multiple_of(16) {
        return Err(TensorMapError::BoxInnerBytes { bytes: inner });
    }
    for (dim, &value) in s.element_strides.iter().enumerate() {
        if value == 0 || value > 8 {
            return Err(TensorMapError::ElementStride { dim, value });
        }
    }
    if s.interleave == Interleave::B32 && s.swizzle != Swizzle::B32 {
        return Err(TensorMapError::InterleaveSwizzle { swizzle: s.swizzle });
    }
    if !interleaved
        && let Some(span) = s.swizzle.span()
        && inner > span
    {
        return Err(TensorMapError::SwizzleSpan {
            bytes: inner,
            swizzle: s.swizzle,
            span,
        });
    }
    Ok(())
}

/// The byte strides of dimensions 1 to rank - 1 of a packed tensor of `elem`-byte values.
pub(super) fn packed_strides(elem: u64, dims: &[u64]) -> Vec<u64> {
    dims.iter()
        .scan(elem, |acc, &d| {
            *acc *= d;
            Some(*acc)
        })
        .take(dims.len().saturating_sub(1))
        .collect()
}

/// A list of `got` entries where rank `rank` needs `want`.
fn lengths(what: &'static str, got: usize, want: usize, rank: usize) -> Result<(), TensorMapError> {
    if got == want {
        Ok(())
    } else {
        Err(TensorMapError::Lengths {
            what,
            got,
            want,
            rank,
        })
    }
}

/// A tiled map's box: 1 to 256 elements along each dimension.
fn check_box(box_dims: &[u32]) -> Result<(), TensorMapError> {
    for (dim, &value) in box_dims.iter().enumerate() {
        if value == 0 {
            return Err(TensorMapError::BoxZero { dim });
        }
        if value > 256 {
            return Err(TensorMapError::BoxTooLarge { dim, value });
        }
    }
    Ok(())
}

/// An im2col map's pixel box: corner offsets within the range the rank allows (fewer bits
/// per offset as spatial dimensions are added), at least one pixel along each spatial
/// dimension, 1 to 256 channels and 1 to 1024 pixels per copy.
fn check_pixel_box(
    dims: &[u64],
    lower: &[i32],
    upper: &[i32],
    channels: u32,
    pixels: u32,
) -> Result<(), TensorMapError> {
    let rank = dims.len();
    let (min, max) = match rank {
        3 => (-32768, 32767),
        4 => (-128, 127),
        _ => (-16, 15),
    };
    for (which, corner) in [("lower", lower), ("upper", upper)] {
        for (dim, &value) in corner.iter().enumerate() {
            if !(min..=max).contains(&value) {
                return Err(TensorMapError::Corner {
                    which,
                    dim,
                    value,
                    min,
                    max,
                    rank,
                });
            }
        }
    }
    for (dim, (&lo, &up)) in lower.iter().zip(upper).enumerate() {
        let extent = dims[dim + 1];
        // Pixels from `lo` to `extent - 1 + up`, both included.
        if extent as i64 + i64::from(up) - i64::from(lo) <= 0 {
            return Err(TensorMapError::EmptyPixelBox {
                dim,
                lower: lo,
                upper: up,
                extent,
            });
        }
    }
    if channels == 0 || channels > 256 {
        return Err(TensorMapError::Channels { value: channels });
    }
    if pixels == 0 || pixels > 1024 {
        return Err(TensorMapError::Pixels { value: pixels });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape<'a>(dims: &'a [u64], strides: &'a [u64], box_dims: &'a [u32]) -> Shape<'a> {
        Shape {
            addr: 0x7f00_0000_0000,
            buffer_bytes: 1 << 30,
            elem: 4,
            dims,
            strides,
            layout: Layout::Tiled { box_dims },
            element_strides: &[1, 1, 1, 1, 1][..dims.len()],
            interleave: Interleave::None,
            swizzle: Swizzle::None,
        }
    }

    #[test]
    fn a_row_major_matrix_with_32_by_32_tiles_passes() {
        assert_eq!(check(&shape(&[1000, 700], &[4000], &[32, 32])), Ok(()));
    }

    /// Every rule, provoked once, with its message.
    #[test]
    fn every_rule_names_what_breaks_it() {
        let e = |s: Shape<'_>| check(&s).unwrap_err().to_string();
        assert_eq!(
            e(shape(&[], &[], &[])),
            "rank 0: a tiled tensor map has 1 to 5 dimensions (3 to 5 when interleaved)"
        );
        assert_eq!(
            e(shape(&[8, 8], &[], &[8, 8])),
            "strides has 0 entries; rank 2 needs 1"
        );
        assert_eq!(
            e(Shape {
                addr: 0x1008,
                ..shape(&[8], &[], &[8])
            }),
            "the buffer's device address 0x1008 is not 16-byte aligned"
        );
        assert_eq!(
            e(shape(&[0], &[], &[8])),
            "global dimension 0 is 0; it must be 1 to 2^32"
        );
        assert_eq!(
            e(shape(&[1000, 7], &[4004], &[32, 7])),
            "stride of dimension 1 is 4004 bytes; it must be a multiple of 16 and below 2^40"
        );
        assert_eq!(
            e(shape(&[1000, 7], &[3984], &[32, 7])),
            "stride of dimension 1 is 3984 bytes, less than the 4000 bytes dimension 0 spans"
        );
        assert_eq!(
            e(Shape {
                buffer_bytes: 4000 * 7 - 4,
                ..shape(&[1000, 7], &[4000], &[32, 7])
            }),
            "the tensor spans 28000 bytes; the buffer holds 27996"
        );
        assert_eq!(e(shape(&[64], &[], &[0])), "box dimension 0 is 0");
        assert_eq!(
            e(shape(&[1000, 7], &[4000], &[32, 300])),
            "box dimension 1 is 300; at most 256"
        );
        assert_eq!(
            e(shape(&[1000], &[], &[6])),
            "the box's inner dimension is 24 bytes; without interleave it must be a multiple of 16"
        );
        assert_eq!(
            e(Shape {
                element_strides: &[9],
                ..shape(&[64], &[], &[8])
            }),
            "element stride 0 is 9; it must be 1 to 8"
        );
        assert_eq!(
            e(Shape {
                swizzle: Swizzle::B64,
                ..shape(&[1000, 7], &[4000], &[32, 7])
            }),
            "the box's inner dimension is 128 bytes; swizzle B64 spans at most 64"
        );
        assert_eq!(
            e(Shape {
                interleave: Interleave::B32,
                ..shape(&[64, 4, 4], &[256, 1024], &[8, 4, 4])
            }),
            "32-byte interleave needs Swizzle::B32, not None"
        );
        assert!(matches!(
            check(&Shape {
                interleave: Interleave::B16,
                ..shape(&[64, 4], &[256], &[8, 4])
            }),
            Err(TensorMapError::Rank { rank: 2 })
        ));
    }

    fn im2col<'a>(dims: &'a [u64], lower: &'a [i32], upper: &'a [i32]) -> Shape<'a> {
        Shape {
            addr: 0x7f00_0000_0000,
            buffer_bytes: 1 << 30,
            elem: 4,
            dims,
            strides: &[],
            layout: Layout::Im2col {
                lower,
                upper,
                channels: 32,
                pixels: 64,
            },
            element_strides: &[1, 1, 1, 1, 1][..dims.len()],
            interleave: Interleave::None,
            swizzle: Swizzle::None,
        }
    }

    #[test]
    fn an_nhwc_tensor_for_a_3_by_3_convolution_passes() {
        let dims = [32, 10, 7, 2];
        let strides = packed_strides(4, &dims);
        let s = Shape {
            strides: &strides,
            ..im2col(&dims, &[-1, -1], &[-1, -1])
        };
        assert_eq!(check(&s), Ok(()));
    }

    /// Every im2col rule, provoked once, with its message.
    #[test]
    fn every_im2col_rule_names_what_breaks_it() {
        let e = |s: Shape<'_>| check(&s).unwrap_err().to_string();
        let dims = [32, 10, 7, 2];
        let strides = packed_strides(4, &dims);
        let nhwc = |lower: &'static [i32], upper: &'static [i32]| Shape {
            strides: &strides,
            ..im2col(&dims, lower, upper)
        };
        assert_eq!(
            e(im2col(&[32, 10], &[], &[])),
            "rank 2: an im2col tensor map has 3 to 5 dimensions (channels, 1 to 3 spatial \
             dimensions, images)"
        );
        assert_eq!(
            e(nhwc(&[-1], &[-1, -1])),
            "lower corner has 1 entries; rank 4 needs 2"
        );
        assert_eq!(
            e(nhwc(&[-129, -1], &[-1, -1])),
            "lower corner offset -129 of spatial dimension 0 is outside -128 to 127, the range \
             for rank 4"
        );
        let dims5 = [16, 4, 4, 4, 1];
        let strides5 = packed_strides(4, &dims5);
        assert_eq!(
            e(Shape {
                strides: &strides5,
                ..im2col(&dims5, &[0, 0, 0], &[0, 16, 0])
            }),
            "upper corner offset 16 of spatial dimension 1 is outside -16 to 15, the range for \
             rank 5"
        );
        // H = 7: from 3 to 7 - 1 - 4 = 2 is no pixel.
        assert_eq!(
            e(nhwc(&[-1, 3], &[-1, -4])),
            "the pixel box is empty along spatial dimension 1: 7 pixels from 3 to 7 - 1 + (-4)"
        );
        let with = |channels, pixels| Shape {
            layout: Layout::Im2col {
                lower: &[-1, -1],
                upper: &[-1, -1],
                channels,
                pixels,
            },
            ..nhwc(&[-1, -1], &[-1, -1])
        };
        assert_eq!(
            e(with(300, 64)),
            "300 channels per pixel; an im2col map loads 1 to 256"
        );
        assert_eq!(
            e(with(32, 1025)),
            "1025 pixels per column; an im2col map loads 1 to 1024"
        );
        assert_eq!(
            e(with(2, 64)),
            "the box's inner dimension is 8 bytes; without interleave it must be a multiple of 16"
        );
        assert_eq!(
            e(Shape {
                swizzle: Swizzle::B64,
                ..nhwc(&[-1, -1], &[-1, -1])
            }),
            "the box's inner dimension is 128 bytes; swizzle B64 spans at most 64"
        );
        // The rules the tiled and im2col maps share still apply.
        assert_eq!(
            e(Shape {
                buffer_bytes: 100,
                ..nhwc(&[-1, -1], &[-1, -1])
            }),
            "the tensor spans 17920 bytes; the buffer holds 100"
        );
    }
}

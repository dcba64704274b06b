//! The rules of `cuTensorMapEncodeTiled`, checked before the driver sees a descriptor: each
//! broken rule is a [`TensorMapError`] that says which dimension and which limit.

use super::map::{Interleave, Swizzle};

/// A tensor map the driver would refuse, or one that would reach past its buffer.
///
/// ```
/// use cuda_kernel_runtime::TensorMapError;
/// let e = TensorMapError::BoxTooLarge { dim: 1, value: 512 };
/// assert_eq!(e.to_string(), "box dimension 1 is 512; at most 256");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TensorMapError {
    /// The rank is outside 1 to 5 (3 to 5 with interleave).
    #[error("rank {rank}: a tiled tensor map has 1 to 5 dimensions (3 to 5 when interleaved)")]
    Rank {
        /// The rank asked for.
        rank: usize,
    },
    /// The lists of dimensions, strides, box sizes and element strides disagree in length.
    #[error("{what} has {got} entries; the rank is {rank} (strides: rank - 1)")]
    Lengths {
        /// Which list.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The rank.
        rank: usize,
    },
    /// The buffer's address is not aligned as TMA needs.
    #[error("the buffer's device address {addr:#x} is not {align}-byte aligned")]
    Address {
        /// The address.
        addr: u64,
        /// The alignment needed (16, or 32 with 32-byte interleave).
        align: u64,
    },
    /// A dimension is zero or above 2^32.
    #[error("global dimension {dim} is {value}; it must be 1 to 2^32")]
    Dim {
        /// Which dimension.
        dim: usize,
        /// Its value.
        value: u64,
    },
    /// A stride is not a multiple of 16 bytes, or not below 2^40.
    #[error(
        "stride of dimension {dim} is {bytes} bytes; it must be a multiple of 16 and below 2^40"
    )]
    Stride {
        /// Which dimension (1 to rank - 1; dimension 0 is contiguous).
        dim: usize,
        /// The stride in bytes.
        bytes: u64,
    },
    /// A stride smaller than the extent of the dimension below it: rows would overlap.
    #[error(
        "stride of dimension {dim} is {bytes} bytes, less than the {below} bytes dimension {} spans",
        dim - 1
    )]
    StrideOverlap {
        /// Which dimension.
        dim: usize,
        /// The stride in bytes.
        bytes: u64,
        /// The bytes the dimension below spans.
        below: u64,
    },
    /// The tensor reaches past the end of the buffer.
    #[error("the tensor spans {needed} bytes; the buffer holds {len}")]
    OutOfBuffer {
        /// Bytes the tensor spans.
        needed: u64,
        /// Bytes in the buffer.
        len: u64,
    },
    /// A box dimension is zero.
    #[error("box dimension {dim} is 0")]
    BoxZero {
        /// Which dimension.
        dim: usize,
    },
    /// A box dimension above 256.
    #[error("box dimension {dim} is {value}; at most 256")]
    BoxTooLarge {
        /// Which dimension.
        dim: usize,
        /// Its value.
        value: u32,
    },
    /// Without interleave, the box's inner dimension must be a multiple of 16 bytes.
    #[error(
        "the box's inner dimension is {bytes} bytes; without interleave it must be a multiple of 16"
    )]
    BoxInnerBytes {
        /// Its size in bytes.
        bytes: u64,
    },
    /// An element stride outside 1 to 8.
    #[error("element stride {dim} is {value}; it must be 1 to 8")]
    ElementStride {
        /// Which dimension.
        dim: usize,
        /// Its value.
        value: u32,
    },
    /// With swizzle and no interleave, the box's inner dimension must fit the swizzle span.
    #[error("the box's inner dimension is {bytes} bytes; swizzle {swizzle:?} spans at most {span}")]
    SwizzleSpan {
        /// The inner box dimension in bytes.
        bytes: u64,
        /// The swizzle asked for.
        swizzle: Swizzle,
        /// Its span in bytes.
        span: u64,
    },
    /// 32-byte interleave needs the 32-byte swizzle.
    #[error("32-byte interleave needs Swizzle::B32, not {swizzle:?}")]
    InterleaveSwizzle {
        /// The swizzle asked for.
        swizzle: Swizzle,
    },
}

/// What the rules look at.
pub(super) struct Shape<'a> {
    pub addr: u64,
    pub buffer_bytes: u64,
    pub elem: u64,
    pub dims: &'a [u64],
    /// Bytes between consecutive indices of dimensions 1.. (rank - 1 entries).
    pub strides: &'a [u64],
    pub box_dims: &'a [u32],
    pub element_strides: &'a [u32],
    pub interleave: Interleave,
    pub swizzle: Swizzle,
}

/// Checks every rule, in the order the driver's documentation lists them.
pub(super) fn check(s: &Shape<'_>) -> Result<(), TensorMapError> {
    let rank = s.dims.len();
    let interleaved = s.interleave != Interleave::None;
    if rank == 0 || rank > 5 || (interleaved && rank < 3) {
        return Err(TensorMapError::Rank { rank });
    }
    for (what, got, want) in [
        ("strides", s.strides.len(), rank - 1),
        ("box", s.box_dims.len(), rank),
        ("element strides", s.element_strides.len(), rank),
    ] {
        if got != want {
            return Err(TensorMapError::Lengths { what, got, rank });
        }
    }
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
    for (dim, &value) in s.box_dims.iter().enumerate() {
        if value == 0 {
            return Err(TensorMapError::BoxZero { dim });
        }
        if value > 256 {
            return Err(TensorMapError::BoxTooLarge { dim, value });
        }
    }
    let inner = u64::from(s.box_dims[0]) * s.elem;
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
            box_dims,
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
            "strides has 0 entries; the rank is 2 (strides: rank - 1)"
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
}

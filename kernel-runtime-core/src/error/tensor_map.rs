//! [`TensorMapError`]: a rule of `cuTensorMapEncodeTiled` or `cuTensorMapEncodeIm2col` that a
//! tensor map breaks, found before the driver sees the descriptor, and the [`Swizzle`] option
//! two of its variants name. Both are defined here rather than in `tma`, so that the error
//! module depends on no concern; `tma` re-exports them and gives `Swizzle` its driver value.

/// How shared memory tiles are swizzled to avoid bank conflicts (the span in bytes within
/// which 16-byte chunks are permuted).
///
/// ```
/// assert_eq!(cuda_kernel_runtime::Swizzle::default(), cuda_kernel_runtime::Swizzle::None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// No swizzle.
    #[default]
    None,
    /// 16-byte chunks within 32 bytes.
    B32,
    /// 16-byte chunks within 64 bytes.
    B64,
    /// 16-byte chunks within 128 bytes.
    B128,
}

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
    /// An im2col map's rank is outside 3 to 5.
    #[error(
        "rank {rank}: an im2col tensor map has 3 to 5 dimensions (channels, 1 to 3 spatial \
         dimensions, images)"
    )]
    Im2colRank {
        /// The rank asked for.
        rank: usize,
    },
    /// The lists of dimensions, strides, box sizes, corners and element strides disagree in
    /// length.
    #[error("{what} has {got} entries; rank {rank} needs {want}")]
    Lengths {
        /// Which list.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The length the rank asks for.
        want: usize,
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
    /// An im2col map's channels per pixel outside 1 to 256.
    #[error("{value} channels per pixel; an im2col map loads 1 to 256")]
    Channels {
        /// The value asked for.
        value: u32,
    },
    /// An im2col map's pixels per column outside 1 to 1024.
    #[error("{value} pixels per column; an im2col map loads 1 to 1024")]
    Pixels {
        /// The value asked for.
        value: u32,
    },
    /// A corner offset of the pixel box outside the range the rank allows.
    #[error(
        "{which} corner offset {value} of spatial dimension {dim} is outside {min} to {max}, the \
         range for rank {rank}"
    )]
    Corner {
        /// `lower` or `upper`.
        which: &'static str,
        /// Which spatial dimension (0 is W, the dimension after the channels).
        dim: usize,
        /// The offset.
        value: i32,
        /// The smallest allowed.
        min: i32,
        /// The largest allowed.
        max: i32,
        /// The rank.
        rank: usize,
    },
    /// The pixel box holds no pixel along a spatial dimension.
    #[error(
        "the pixel box is empty along spatial dimension {dim}: {extent} pixels from {lower} to \
         {extent} - 1 + ({upper})"
    )]
    EmptyPixelBox {
        /// Which spatial dimension.
        dim: usize,
        /// The lower corner offset.
        lower: i32,
        /// The upper corner offset.
        upper: i32,
        /// The tensor's extent along it.
        extent: u64,
    },
    /// 32-byte interleave needs the 32-byte swizzle.
    #[error("32-byte interleave needs Swizzle::B32, not {swizzle:?}")]
    InterleaveSwizzle {
        /// The swizzle asked for.
        swizzle: Swizzle,
    },
}

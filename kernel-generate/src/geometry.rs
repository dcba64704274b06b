//! The launch geometry the generated kernels are written for: threads per block, grids,
//! scratch sizes. Launchers at build time and at run time take them from here.

use crate::dtype::Dtype;

/// Threads per block of elementwise, partial-reduction and scan kernels.
///
/// ```
/// assert_eq!(cuda_kernel_generate::geometry::BLOCK, 256);
/// ```
pub const BLOCK: u32 = 256;

/// Threads of the one block of a reduction's final kernel.
///
/// ```
/// assert_eq!(cuda_kernel_generate::geometry::FINAL_BLOCK, 1024);
/// ```
pub const FINAL_BLOCK: u32 = 1024;

/// Most blocks of a reduction's first kernel (partials).
///
/// ```
/// assert!(cuda_kernel_generate::geometry::MAX_PARTIALS <= cuda_kernel_generate::geometry::FINAL_BLOCK);
/// ```
pub const MAX_PARTIALS: u32 = 1024;

/// Most blocks of an elementwise grid (larger inputs loop).
const MAX_BLOCKS: u64 = 1 << 20;

/// Blocks of an elementwise launch over `n` elements, `width` per thread and step.
///
/// ```
/// use cuda_kernel_generate::geometry::elementwise_blocks;
/// assert_eq!(elementwise_blocks(1 << 26, 4), 1 << 16);
/// assert_eq!(elementwise_blocks(1, 4), 1);
/// ```
pub fn elementwise_blocks(n: u64, width: u32) -> u32 {
    let threads = n.div_ceil(u64::from(width.max(1)));
    threads.div_ceil(u64::from(BLOCK)).clamp(1, MAX_BLOCKS) as u32
}

/// Blocks (and partials) of a reduction's first launch over `n` elements: a function of `n`
/// alone, so the order of operations, and a float result's bits, are the same on every GPU.
///
/// ```
/// use cuda_kernel_generate::geometry::reduction_blocks;
/// assert_eq!(reduction_blocks(0, 4), 1);
/// assert_eq!(reduction_blocks(1 << 26, 4), 1024);
/// ```
pub fn reduction_blocks(n: u64, width: u32) -> u32 {
    let per_block = u64::from(BLOCK) * u64::from(width.max(1));
    n.div_ceil(per_block).clamp(1, u64::from(MAX_PARTIALS)) as u32
}

/// Elements per thread of a scan tile of `dtype`.
///
/// ```
/// use cuda_kernel_generate::{Dtype, geometry::scan_items};
/// assert_eq!(scan_items(Dtype::F32), 32);
/// assert_eq!(scan_items(Dtype::F64), 16);
/// ```
///
/// Large tiles: a tile's fixed costs (taking its number, the look-back) are paid once per
/// 32 KiB of data (32 KiB and four blocks per SM: 236 µs for 2^26 floats on an H100, where
/// 16 items took 300 µs and 8 items 360 µs).
pub fn scan_items(dtype: Dtype) -> u32 {
    (128 / dtype.size() as u32).clamp(1, 32)
}

/// Tiles (blocks) of a scan over `n` elements.
///
/// ```
/// use cuda_kernel_generate::{Dtype, geometry::scan_tiles};
/// assert_eq!(scan_tiles(8192, Dtype::F32), 1);
/// assert_eq!(scan_tiles(8193, Dtype::F32), 2);
/// assert_eq!(scan_tiles(0, Dtype::F32), 0);
/// ```
pub fn scan_tiles(n: u64, dtype: Dtype) -> u64 {
    n.div_ceil(u64::from(BLOCK) * u64::from(scan_items(dtype)))
}

/// 8-byte words of scratch a scan of `tiles` tiles needs: a tile counter, then per tile a
/// status word holding flag and value (values of up to 4 bytes), or a flag and two values.
///
/// ```
/// use cuda_kernel_generate::{Dtype, geometry::scan_scratch_words};
/// assert_eq!(scan_scratch_words(2, Dtype::F32), 1 + 2);
/// assert_eq!(scan_scratch_words(2, Dtype::F64), 1 + 1 + 4);
/// ```
pub fn scan_scratch_words(tiles: u64, dtype: Dtype) -> u64 {
    if dtype.size() <= 4 {
        1 + tiles
    } else {
        scan_zeroed_words(tiles, dtype) + (tiles * 2 * dtype.size() as u64).div_ceil(8)
    }
}

/// The leading words of a scan's scratch that must be zero at each launch (the counter and
/// the tiles' status).
///
/// ```
/// use cuda_kernel_generate::{Dtype, geometry::scan_zeroed_words};
/// assert_eq!(scan_zeroed_words(3, Dtype::I32), 1 + 3);
/// assert_eq!(scan_zeroed_words(3, Dtype::I64), 1 + 2);
/// ```
pub fn scan_zeroed_words(tiles: u64, dtype: Dtype) -> u64 {
    if dtype.size() <= 4 {
        1 + tiles
    } else {
        1 + tiles.div_ceil(2)
    }
}

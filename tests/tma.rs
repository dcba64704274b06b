//! TMA tensor maps through a typed stub, on the GPU: a kernel taking
//! `const __grid_constant__ CUtensorMap` copies a row-major matrix of odd height tile by
//! tile (edge tiles partly outside the tensor), packed and from rows padded to a pitch, and
//! the copy is compared element by element with the random input; an im2col map gives, for
//! every tap of a 3 x 2 filter with padding, the columns of an NHWC tensor (zeros in the
//! padding), compared with the CPU's im2col; a launch passing a map orders the map's buffer
//! with work on other streams (a read map waits for a late write, a store map for a late read,
//! and a later read for the store); the descriptor rules the driver would refuse are errors
//! before it sees them, and the driver refuses what the rules refuse.
//!
//! Skips (with the reason) without a GPU or below compute capability 9.0; fails when
//! `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{
    Error, Gpu, Im2colShape, Launch, TensorMap, TensorMapError, TensorMapOptions, cuda_module,
};
use kernel_test_support::{NonZeroData, Rng, gpu_at_least_or_skip, gpu_or_skip};

cuda_module! {
    /// A TMA tile copy.
    mod tma {
        file = "cuda/tma.cu";
        arch = ["sm_90"];
    }
}

const TILE: u32 = 32;

fn grid(rows: usize, cols: usize) -> Launch {
    Launch::new(
        ((cols as u32).div_ceil(TILE), (rows as u32).div_ceil(TILE)),
        128,
    )
}

#[test]
fn the_stub_takes_a_tensor_map_checked_against_the_image() {
    let k = &tma::METADATA.kernels[0];
    assert_eq!(k.name, "tma_tiles");
    // 128 bytes, placed by the compiler at a 128-byte boundary of the bank.
    assert_eq!(k.params[0].size, 128);
}

#[test]
fn tiles_of_a_matrix_through_a_tensor_map() -> Result<(), Error> {
    let Some(gpu) = gpu_at_least_or_skip(9, "TMA") else {
        return Ok(());
    };
    let k = tma::load(&gpu)?;
    let (rows, cols) = (701usize, 1000usize);
    let mut r = Rng::with_seed(71);
    let host = r.nonzero_f32s(rows * cols);
    let src = gpu.upload(&host)?;
    let map = TensorMap::tiled(&src, &[cols as u64, rows as u64], &[TILE, TILE])?;
    let mut out = gpu.zeros::<f32>(rows * cols)?;
    // SAFETY: the kernel writes out[y * cols + x] for y < rows, x < cols; out holds that.
    unsafe { k.tma_tiles(&grid(rows, cols), &map, &mut out, rows as i32, cols as i32)? };
    assert_eq!(gpu.download(&out)?, host);

    // Rows padded to a pitch of 1024 floats: the map's stride says so.
    let pitch = 1024usize;
    let mut padded = vec![0.0f32; rows * pitch];
    for y in 0..rows {
        padded[y * pitch..y * pitch + cols].copy_from_slice(&host[y * cols..(y + 1) * cols]);
    }
    let src = gpu.upload(&padded)?;
    let opts = TensorMapOptions {
        strides: Some(vec![(pitch * 4) as u64]),
        ..TensorMapOptions::default()
    };
    let map = TensorMap::tiled_with(&src, &[cols as u64, rows as u64], &[TILE, TILE], &opts)?;
    let mut out = gpu.zeros::<f32>(rows * cols)?;
    // SAFETY: as above.
    unsafe { k.tma_tiles(&grid(rows, cols), &map, &mut out, rows as i32, cols as i32)? };
    assert_eq!(gpu.download(&out)?, host);
    Ok(())
}

/// About 10 ms of spinning on an H100: long enough that a launch on another stream, queued
/// right after, would overtake the spinning kernel if nothing ordered the two.
const LATE: i64 = 20_000_000;

/// Two new streams, a and b: the module on each, and stream a.
fn two_streams(gpu: &Gpu) -> Result<(Gpu, tma::Module, tma::Module), Error> {
    let (a, b) = (
        gpu.with_stream(&gpu.new_stream()?),
        gpu.with_stream(&gpu.new_stream()?),
    );
    let (on_a, on_b) = (tma::load(&a)?, tma::load(&b)?);
    Ok((a, on_a, on_b))
}

fn elementwise(n: usize) -> Launch {
    Launch::new((n as u32).div_ceil(256), 256)
}

#[test]
fn a_read_map_waits_for_a_write_on_another_stream() -> Result<(), Error> {
    let Some(gpu) = gpu_at_least_or_skip(9, "TMA") else {
        return Ok(());
    };
    let (rows, cols) = (701usize, 1000usize);
    let n = rows * cols;
    let host = Rng::with_seed(75).nonzero_f32s(n);
    let staging = gpu.upload(&host)?;
    let mut src = gpu.zeros::<f32>(n)?;
    let (_, on_a, on_b) = two_streams(&gpu)?;
    // SAFETY: both buffers hold n values; the kernel reads and writes index < n.
    unsafe { on_a.late_copy(&elementwise(n), &staging, &mut src, n as i32, LATE)? };
    // The map's launch on stream b reads `src`: it waits for the late write on stream a.
    let map = TensorMap::tiled(&src, &[cols as u64, rows as u64], &[TILE, TILE])?;
    let mut out = gpu.zeros::<f32>(n)?;
    // SAFETY: the kernel writes out[y * cols + x] for y < rows, x < cols; out holds that.
    unsafe { on_b.tma_tiles(&grid(rows, cols), &map, &mut out, rows as i32, cols as i32)? };
    assert_eq!(gpu.download(&out)?, host);
    Ok(())
}

#[test]
fn a_write_map_waits_for_reads_and_is_waited_for() -> Result<(), Error> {
    let Some(gpu) = gpu_at_least_or_skip(9, "TMA") else {
        return Ok(());
    };
    let (rows, cols) = (701usize, 1000usize);
    let n = rows * cols;
    let mut r = Rng::with_seed(77);
    let (first, second) = (r.nonzero_f32s(n), r.nonzero_f32s(n));
    let mut dst = gpu.upload(&first)?;
    let next = gpu.upload(&second)?;
    let mut snapshot = gpu.zeros::<f32>(n)?;
    let (a, on_a, on_b) = two_streams(&gpu)?;
    // SAFETY: both buffers hold n values; the kernel reads and writes index < n.
    unsafe { on_a.late_copy(&elementwise(n), &dst, &mut snapshot, n as i32, LATE)? };
    {
        // The store through the map on stream b waits for the late read on stream a.
        let map = TensorMap::tiled_mut(
            &mut dst,
            &[cols as u64, rows as u64],
            &[TILE, TILE],
            &TensorMapOptions::default(),
        )?;
        // SAFETY: the kernel reads next[y * cols + x] for y < rows, x < cols; the map's
        // stores are clipped to the tensor.
        unsafe { on_b.tma_store_tiles(&grid(rows, cols), &next, &map, rows as i32, cols as i32)? };
    }
    // A read on stream a waits for the store on stream b.
    assert_eq!(a.download(&dst)?, second);
    assert_eq!(gpu.download(&snapshot)?, first);
    Ok(())
}

#[test]
fn descriptors_the_driver_would_refuse_are_errors_first() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let v = gpu.zeros::<f32>(1001 * 3)?;
    // A packed row of 1001 floats is 4004 bytes: not a multiple of 16.
    let err = TensorMap::tiled(&v, &[1001, 3], &[32, 3]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::TensorMap(TensorMapError::Stride {
                dim: 1,
                bytes: 4004
            })
        ),
        "{err}"
    );
    // More rows than the buffer holds.
    let err = TensorMap::tiled(&v, &[1000, 4], &[32, 4]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tensor map: the tensor spans 16000 bytes; the buffer holds 12012"
    );
    let err = TensorMap::tiled(&v, &[1000, 3], &[32, 512]).unwrap_err();
    assert!(err.to_string().contains("at most 256"), "{err}");
    Ok(())
}

/// An NHWC tensor's im2col columns for a filter of `taps_w` x `taps_h` taps with padding
/// `pad_w`, `pad_h` (stride 1): for output pixel m and tap (r, s), the input pixel at
/// (q - pad_w + s, p - pad_h + r), zeros outside. Rows are output pixels, then taps, then
/// channels, as the kernel writes them.
#[allow(clippy::too_many_arguments)]
fn im2col_cpu(
    x: &[f32],
    (c, w, h, n): (usize, usize, usize, usize),
    (taps_w, taps_h): (usize, usize),
    (pad_w, pad_h): (usize, usize),
) -> Vec<f32> {
    let (q_extent, p_extent) = (w + 2 * pad_w + 1 - taps_w, h + 2 * pad_h + 1 - taps_h);
    let mut out = Vec::with_capacity(q_extent * p_extent * n * taps_w * taps_h * c);
    for m in 0..q_extent * p_extent * n {
        let (q, p, img) = (
            m % q_extent,
            (m / q_extent) % p_extent,
            m / (q_extent * p_extent),
        );
        for r in 0..taps_h {
            for s in 0..taps_w {
                let (xw, yh) = ((q + s).checked_sub(pad_w), (p + r).checked_sub(pad_h));
                for ch in 0..c {
                    out.push(match (xw, yh) {
                        (Some(xw), Some(yh)) if xw < w && yh < h => {
                            x[((img * h + yh) * w + xw) * c + ch]
                        }
                        _ => 0.0,
                    });
                }
            }
        }
    }
    out
}

#[test]
fn im2col_columns_of_an_nhwc_tensor_for_every_filter_tap() -> Result<(), Error> {
    let Some(gpu) = gpu_at_least_or_skip(9, "TMA") else {
        return Ok(());
    };
    let k = tma::load(&gpu)?;
    // Odd sizes, and a filter and padding that differ between W and H, so that a corner
    // given in the wrong order shows.
    let (c, w, h, n) = (32usize, 10usize, 7usize, 3usize);
    let (taps_w, taps_h, pad_w, pad_h) = (3usize, 2usize, 1usize, 0usize);
    let (q_extent, p_extent) = (w + 2 * pad_w + 1 - taps_w, h + 2 * pad_h + 1 - taps_h);
    let total = q_extent * p_extent * n;
    let taps = taps_w * taps_h;
    let lower = [-(pad_w as i32), -(pad_h as i32)];
    let upper = [
        pad_w as i32 - (taps_w as i32 - 1),
        pad_h as i32 - (taps_h as i32 - 1),
    ];
    let xs = Rng::with_seed(73).nonzero_f32s(c * w * h * n);
    let x = gpu.upload(&xs)?;
    let shape = Im2colShape {
        lower_corner: lower.to_vec(),
        upper_corner: upper.to_vec(),
        channels_per_pixel: 32,
        pixels_per_column: 64,
    };
    let dims = [c as u64, w as u64, h as u64, n as u64];
    let map = TensorMap::im2col(&x, &dims, &shape, &TensorMapOptions::default())?;
    assert_eq!(map.box_dims(), [32, 64]);
    let mut out = gpu.zeros::<f32>(total * taps * c)?;
    let cfg = Launch::new(((total as u32).div_ceil(64), taps as u32), 128);
    // SAFETY: the kernel writes out[(m * taps + tap) * 32 + c] for m < total, tap < taps,
    // c < 32: the buffer holds total * taps * 32.
    unsafe {
        k.im2col_columns(
            &cfg,
            &map,
            &mut out,
            q_extent as i32,
            p_extent as i32,
            taps_w as i32,
            taps as i32,
            lower[0],
            lower[1],
            total as i32,
        )?
    };
    let got = gpu.download(&out)?;
    let want = im2col_cpu(&xs, (c, w, h, n), (taps_w, taps_h), (pad_w, pad_h));
    let wrong: Vec<String> = got
        .iter()
        .zip(&want)
        .enumerate()
        .filter(|(_, (g, e))| g != e)
        .take(6)
        .map(|(i, (g, e))| {
            let (m, tap, ch) = (i / (taps * c), (i / c) % taps, i % c);
            // Where the value came from, to tell which rule of the walk differs.
            let from = xs.iter().position(|v| v == g).map(|at| {
                let (ch, xw, yh, img) =
                    (at % c, (at / c) % w, (at / (c * w)) % h, at / (c * w * h));
                format!("input (n {img}, h {yh}, w {xw}, c {ch})")
            });
            format!("pixel {m} tap {tap} channel {ch}: got {g} from {from:?}, want {e}")
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        want.iter().filter(|v| **v == 0.0).count() > 0,
        "the padding is loaded as zeros"
    );
    Ok(())
}

#[test]
fn im2col_rules_are_errors_first_and_the_driver_agrees() -> Result<(), Error> {
    let Some(gpu) = gpu_at_least_or_skip(9, "TMA") else {
        return Ok(());
    };
    let dims = [4u64, 10, 7, 2];
    let x = gpu.zeros::<f32>(4 * 10 * 7 * 2)?;
    let opts = TensorMapOptions::default();
    let shape = |channels| Im2colShape {
        lower_corner: vec![-1, -1],
        upper_corner: vec![-1, -1],
        channels_per_pixel: channels,
        pixels_per_column: 64,
    };
    // Four floats a pixel (16 bytes): the driver encodes it.
    TensorMap::im2col(&x, &dims, &shape(4), &opts)?;
    // Two floats (8 bytes) is refused here, and by the driver when asked directly.
    let err = TensorMap::im2col(&x, &dims, &shape(2), &opts).unwrap_err();
    assert!(
        matches!(
            err,
            Error::TensorMap(TensorMapError::BoxInnerBytes { bytes: 8 })
        ),
        "{err}"
    );
    assert!(driver_encodes_im2col(&x, &dims, &shape(2)).is_err());
    assert!(driver_encodes_im2col(&x, &dims, &shape(4)).is_ok());
    // A rank-3 tensor has no room for two corner offsets.
    let err = TensorMap::im2col(&x, &dims[1..], &shape(4), &opts).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tensor map: lower corner has 2 entries; rank 3 needs 1"
    );
    Ok(())
}

/// `cuTensorMapEncodeIm2col` called directly, packed strides, to see what the driver accepts.
fn driver_encodes_im2col(
    x: &cuda_kernel_runtime::TrackedBuffer<f32>,
    dims: &[u64],
    shape: &Im2colShape,
) -> Result<(), cuda_kernel_runtime::cudarc::driver::DriverError> {
    use cuda_kernel_runtime::cudarc::driver::sys;
    let strides: Vec<u64> = dims
        .iter()
        .scan(4u64, |acc, &d| {
            *acc *= d;
            Some(*acc)
        })
        .take(dims.len() - 1)
        .collect();
    let addr = cuda_kernel_runtime::RawDevicePtr::of(x).addr();
    let mut map = std::mem::MaybeUninit::<sys::CUtensorMap>::zeroed();
    let element_strides = vec![1u32; dims.len()];
    // SAFETY: every array holds what the rank asks for; the address is the live buffer's.
    unsafe {
        sys::cuTensorMapEncodeIm2col(
            map.as_mut_ptr(),
            sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            dims.len() as u32,
            addr as *mut std::ffi::c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            shape.lower_corner.as_ptr(),
            shape.upper_corner.as_ptr(),
            shape.channels_per_pixel,
            shape.pixels_per_column,
            element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    }
    .result()
}

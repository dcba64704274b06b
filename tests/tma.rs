//! TMA tensor maps through a typed stub, on the GPU: a kernel taking
//! `const __grid_constant__ CUtensorMap` copies a row-major matrix of odd height tile by
//! tile (edge tiles partly outside the tensor), packed and from rows padded to a pitch, and
//! the copy is compared element by element with the random input; the descriptor rules the
//! driver would refuse are errors before it sees them.
//!
//! Skips (with the reason) without a GPU or below compute capability 9.0; fails when
//! `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Launch, TensorMap, TensorMapError, TiledOptions, cuda_module};
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};

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
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    if gpu.limits().compute_capability.0 < 9 {
        eprintln!("skipped: TMA needs sm_90 (device is {})", gpu.arch());
        return Ok(());
    }
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
    let opts = TiledOptions {
        strides: Some(vec![(pitch * 4) as u64]),
        ..TiledOptions::default()
    };
    let map = TensorMap::tiled_with(&src, &[cols as u64, rows as u64], &[TILE, TILE], &opts)?;
    let mut out = gpu.zeros::<f32>(rows * cols)?;
    // SAFETY: as above.
    unsafe { k.tma_tiles(&grid(rows, cols), &map, &mut out, rows as i32, cols as i32)? };
    assert_eq!(gpu.download(&out)?, host);
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

//! CUDA arrays, texture objects and surface objects, against CPU references on random data:
//! 1D/2D/3D arrays filled and read back with copies; a 2D texture sampled with linear
//! filtering (clamped, unnormalised and normalised coordinates) against the texture unit's
//! arithmetic (9-bit fixed-point weights); an 8-bit texture read as normalised floats; a
//! point-sampled 3D texture; a surface written by a kernel and copied back. The texture and
//! surface parameters are `cudaTextureObject_t` / `cudaSurfaceObject_t` in CUDA and take the
//! runtime's objects through the generated stubs.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{
    AddressMode, ArrayFormat, Error, FilterMode, Launch, Region, RegionMut, TextureDesc,
    cuda_module,
};
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};

cuda_module! {
    mod tex {
        source = r#"
            // out[y][x] = the texture at ((x + 0.5) * sx, (y + 0.5) * sy).
            extern "C" __global__ void sample_2d(cudaTextureObject_t t, float* out,
                                                 int w, int h, float sx, float sy) {
                int x = blockIdx.x * blockDim.x + threadIdx.x;
                int y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x < w && y < h) out[y * w + x] = tex2D<float>(t, (x + 0.5f) * sx, (y + 0.5f) * sy);
            }
            extern "C" __global__ void sample_3d(cudaTextureObject_t t, float* out, int w, int h, int d) {
                int x = blockIdx.x * blockDim.x + threadIdx.x;
                int y = blockIdx.y * blockDim.y + threadIdx.y;
                int z = blockIdx.z;
                if (x < w && y < h && z < d)
                    out[(z * h + y) * w + x] = tex3D<float>(t, x + 0.5f, y + 0.5f, z + 0.5f);
            }
            // Writes x + 1000 y + s into each element of a 2D surface of floats.
            extern "C" __global__ void fill_surface(cudaSurfaceObject_t s, int w, int h, float v) {
                int x = blockIdx.x * blockDim.x + threadIdx.x;
                int y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x < w && y < h) {
                    float old = surf2Dread<float>(s, x * (int)sizeof(float), y);
                    surf2Dwrite(old + x + 1000.0f * y + v, s, x * (int)sizeof(float), y);
                }
            }
        "#;
    }
}

/// The texture unit's linear filter in one dimension: the position's fractional part as a
/// 9-bit fixed-point weight (8 fractional bits), neighbours clamped to the edge.
fn lerp_index(pos: f32, size: usize) -> (usize, usize, f32) {
    let b = pos - 0.5;
    let i = b.floor();
    let alpha = ((b - i) * 256.0).round() / 256.0;
    let clamp = |k: f32| (k.max(0.0) as usize).min(size - 1);
    (clamp(i), clamp(i + 1.0), alpha)
}

fn linear_2d(t: &[f32], w: usize, h: usize, x: f32, y: f32) -> f32 {
    let (x0, x1, a) = lerp_index(x, w);
    let (y0, y1, b) = lerp_index(y, h);
    let at = |xx: usize, yy: usize| t[yy * w + xx];
    (1.0 - a) * (1.0 - b) * at(x0, y0)
        + a * (1.0 - b) * at(x1, y0)
        + (1.0 - a) * b * at(x0, y1)
        + a * b * at(x1, y1)
}

fn close(got: &[f32], want: &[f32], tol: f32) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "element {i}: got {g}, want {w}");
    }
    assert_eq!(got.len(), want.len());
}

#[test]
fn arrays_of_each_shape_round_trip() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let mut rng = Rng::with_seed(71);
    let line = rng.nonzero_f32s(500);
    let mut a1 = gpu.array_1d(ArrayFormat::F32, 1, 500)?;
    gpu.copy_2d(Region::host(&line, 500), RegionMut::array(&mut a1), 500, 1)?;
    let mut back = vec![0.0f32; 500];
    gpu.copy_2d(Region::array(&a1), RegionMut::host(&mut back, 500), 500, 1)?;
    assert_eq!(back, line);

    // Two channels (`float2` elements) in a 2D array, through a device buffer.
    let (w, h) = (33usize, 17usize);
    let pairs: Vec<[f32; 2]> = (0..w * h)
        .map(|_| [rng.nonzero_f32(), rng.nonzero_f32()])
        .collect();
    let mut a2 = gpu.array_2d(ArrayFormat::F32, 2, w, h)?;
    gpu.copy_2d(Region::host(&pairs, w), RegionMut::array(&mut a2), w, h)?;
    let mut dev = gpu.zeros::<[f32; 2]>(w * h)?;
    gpu.copy_2d(Region::array(&a2), RegionMut::device(&mut dev, w), w, h)?;
    assert_eq!(gpu.download(&dev)?, pairs);

    // A 3D array, and a box out of it.
    let (w, h, d) = (12usize, 9usize, 5usize);
    let vol = rng.nonzero_u32s(w * h * d);
    let mut a3 = gpu.array_3d(ArrayFormat::U32, 1, w, h, d)?;
    gpu.copy_3d(
        Region::host(&vol, w).rows_per_plane(h),
        RegionMut::array(&mut a3),
        [w, h, d],
    )?;
    let mut part = vec![0u32; 4 * 3 * 2];
    gpu.copy_3d(
        Region::array(&a3).at_3d(5, 2, 1),
        RegionMut::host(&mut part, 4).rows_per_plane(3),
        [4, 3, 2],
    )?;
    for z in 0..2 {
        for y in 0..3 {
            for x in 0..4 {
                assert_eq!(
                    part[(z * 3 + y) * 4 + x],
                    vol[((z + 1) * h + y + 2) * w + x + 5]
                );
            }
        }
    }
    // An element type of the wrong size is refused.
    let wrong = vec![0u16; w];
    let err = gpu
        .copy_2d(Region::host(&wrong, w), RegionMut::array(&mut a3), w, 1)
        .unwrap_err();
    assert!(err.to_string().contains("4-byte elements"), "{err}");
    Ok(())
}

#[test]
fn a_linear_texture_matches_the_texture_units_arithmetic() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = tex::load(&gpu)?;
    let (w, h) = (64usize, 48usize);
    let texels = Rng::with_seed(72).nonzero_f32s(w * h);
    let mut arr = gpu.array_2d(ArrayFormat::F32, 1, w, h)?;
    gpu.copy_2d(Region::host(&texels, w), RegionMut::array(&mut arr), w, h)?;
    let desc = TextureDesc::new()
        .address(AddressMode::Clamp)
        .filter(FilterMode::Linear);
    let t = gpu.texture::<f32>(&arr, &desc)?;
    // Upsampled 4× (and a little beyond the edges, which clamp): every weight is a multiple
    // of 1/8, exact in the texture unit's fixed point whatever its rounding.
    let (ow, oh) = (4 * w + 10, 4 * h + 6);
    let (sx, sy) = (0.25f32, 0.25f32);
    let mut out = gpu.zeros::<f32>(ow * oh)?;
    let cfg = Launch::new(
        ((ow as u32).div_ceil(16), (oh as u32).div_ceil(16)),
        (16, 16),
    );
    // SAFETY: sample_2d writes out[y * w + x] for x < ow, y < oh.
    unsafe { m.sample_2d(&cfg, &t, &mut out, ow as i32, oh as i32, sx, sy)? };
    let got = gpu.download(&out)?;
    let want: Vec<f32> = (0..ow * oh)
        .map(|i| {
            let (x, y) = (i % ow, i / ow);
            linear_2d(&texels, w, h, (x as f32 + 0.5) * sx, (y as f32 + 0.5) * sy)
        })
        .collect();
    // The hardware interpolates in reduced precision beyond the weights: 2e-3 of texels ≤ 2.
    close(&got, &want, 2e-3);

    // Normalised coordinates: the same samples with sx, sy divided by the size.
    let t = gpu.texture::<f32>(&arr, &desc.normalized_coords(true))?;
    // SAFETY: as above.
    unsafe {
        m.sample_2d(
            &cfg,
            &t,
            &mut out,
            ow as i32,
            oh as i32,
            sx / w as f32,
            sy / h as f32,
        )?
    };
    close(&gpu.download(&out)?, &want, 2e-3);
    Ok(())
}

#[test]
fn integer_texels_read_as_normalised_floats_and_3d_points() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = tex::load(&gpu)?;
    let mut rng = Rng::with_seed(73);
    let (w, h) = (40usize, 30usize);
    let bytes: Vec<u8> = (0..w * h).map(|_| rng.u8(1..=255)).collect();
    let mut arr = gpu.array_2d(ArrayFormat::U8, 1, w, h)?;
    gpu.copy_2d(Region::host(&bytes, w), RegionMut::array(&mut arr), w, h)?;
    // Reading u8 texels as f32 without normalisation is a type mismatch.
    assert!(gpu.texture::<f32>(&arr, &TextureDesc::new()).is_err());
    let t = gpu.texture::<f32>(&arr, &TextureDesc::new().normalized_float(true))?;
    let mut out = gpu.zeros::<f32>(w * h)?;
    let cfg = Launch::new(((w as u32).div_ceil(16), (h as u32).div_ceil(16)), (16, 16));
    // SAFETY: point samples at texel centres, one per output element.
    unsafe { m.sample_2d(&cfg, &t, &mut out, w as i32, h as i32, 1.0, 1.0)? };
    let want: Vec<f32> = bytes.iter().map(|&b| f32::from(b) / 255.0).collect();
    close(&gpu.download(&out)?, &want, 1e-6);

    let (w, h, d) = (16usize, 12usize, 4usize);
    let vol = rng.nonzero_f32s(w * h * d);
    let mut a3 = gpu.array_3d(ArrayFormat::F32, 1, w, h, d)?;
    gpu.copy_3d(
        Region::host(&vol, w).rows_per_plane(h),
        RegionMut::array(&mut a3),
        [w, h, d],
    )?;
    let t3 = gpu.texture::<f32>(&a3, &TextureDesc::new())?;
    let mut out = gpu.zeros::<f32>(w * h * d)?;
    let cfg = Launch::new((1, 2, d as u32), (16, 8));
    // SAFETY: sample_3d writes one element per (x, y, z) inside the volume.
    unsafe { m.sample_3d(&cfg, &t3, &mut out, w as i32, h as i32, d as i32)? };
    assert_eq!(gpu.download(&out)?, vol);
    Ok(())
}

#[test]
fn a_surface_is_read_and_written_by_a_kernel() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = tex::load(&gpu)?;
    let (w, h) = (50usize, 20usize);
    let start = Rng::with_seed(74).nonzero_f32s(w * h);
    let mut arr = gpu.array_2d(ArrayFormat::F32, 1, w, h)?;
    gpu.copy_2d(Region::host(&start, w), RegionMut::array(&mut arr), w, h)?;
    let s = gpu.surface::<f32>(&arr)?;
    assert!(
        gpu.surface::<f64>(&arr).is_err(),
        "an 8-byte view of 4-byte elements"
    );
    let cfg = Launch::new(((w as u32).div_ceil(16), (h as u32).div_ceil(16)), (16, 16));
    // SAFETY: fill_surface touches x < w, y < h of the surface.
    unsafe { m.fill_surface(&cfg, &s, w as i32, h as i32, 0.25)? };
    let mut back = vec![0.0f32; w * h];
    gpu.copy_2d(Region::array(&arr), RegionMut::host(&mut back, w), w, h)?;
    let want: Vec<f32> = (0..w * h)
        .map(|i| start[i] + (i % w) as f32 + 1000.0 * (i / w) as f32 + 0.25)
        .collect();
    close(&back, &want, 1e-3);
    Ok(())
}

//! Memory beyond plain device buffers, each checked against a CPU reference on random data:
//! managed buffers as kernel arguments through the generated stubs (with prefetches and
//! advice), registered host memory in asynchronous copies, pitched 2D/3D buffers filled and
//! read back with 2D/3D copies (host↔device and device↔device, sub-blocks at offsets), and
//! copies whose block does not fit refused with the side and the numbers named.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{
    Advice, Error, Launch, Location, MemoryType, Region, RegionMut, cuda_module,
};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    mod kinds {
        source = r#"
            extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * x[i] + y[i];
            }
            // Scales a pitched 2D image in place; `pitch` is in elements.
            extern "C" __global__ void scale_2d(float* img, size_t pitch, int w, int h, float s) {
                int x = blockIdx.x * blockDim.x + threadIdx.x;
                int y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x < w && y < h) img[y * pitch + x] *= s;
            }
            // Adds x + 10 y + 100 z to each element of a pitched volume.
            extern "C" __global__ void ramp_3d(float* vol, size_t pitch, int w, int h, int d) {
                int x = blockIdx.x * blockDim.x + threadIdx.x;
                int y = blockIdx.y * blockDim.y + threadIdx.y;
                int z = blockIdx.z;
                if (x < w && y < h && z < d) vol[(z * h + y) * pitch + x] += x + 10.0f * y + 100.0f * z;
            }
        "#;
    }
}

fn axpy_ref(a: f32, x: &[f32], y: &[f32]) -> Vec<f32> {
    x.iter().zip(y).map(|(x, y)| a * x + y).collect()
}

#[test]
fn managed_buffers_pass_through_the_stubs_and_read_on_the_host() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = kinds::load(&gpu)?;
    let n = 1 << 20;
    let mut rng = Rng::with_seed(61);
    let (xs, ys) = (rng.nonzero_f32s(n), rng.nonzero_f32s(n));
    let x = gpu.managed_from(&xs)?;
    let mut y = gpu.managed_from(&ys)?;
    let addr = cuda_kernel_runtime::DevicePtr::device_ptr(&x, gpu.stream()).0;
    let at = gpu.pointer_attributes(addr)?;
    assert!(at.managed, "{at:?}");
    let cfg = Launch::for_num_elems(n as u32);
    // SAFETY: axpy(float, const float*, float*, int) over n elements of both buffers.
    unsafe { m.axpy(&cfg, 2.0, &x, &mut y, n as i32)? };
    // No explicit synchronisation: the host accessor waits for the launch.
    let want = axpy_ref(2.0, &xs, &ys);
    assert_close(
        y.as_slice().map_err(|e| Error::driver("as_slice", e))?,
        &want,
        1e-6,
    );

    // Prefetched to the device, then back to the host.
    gpu.advise(&x, Advice::ReadMostly)?;
    gpu.advise(&y, Advice::PreferredLocation(Location::Device))?;
    if gpu.concurrent_managed_access()? {
        gpu.prefetch(&x, Location::Device)?;
        gpu.prefetch(&y, Location::Device)?;
    }
    // SAFETY: as above.
    unsafe { m.axpy(&cfg, -0.5, &x, &mut y, n as i32)? };
    gpu.prefetch(&y, Location::Host)?;
    let want = axpy_ref(-0.5, &xs, &want);
    assert_close(
        y.as_slice().map_err(|e| Error::driver("as_slice", e))?,
        &want,
        1e-6,
    );

    // Host writes between launches are seen by the next one.
    y.as_mut_slice()
        .map_err(|e| Error::driver("as_mut_slice", e))?
        .copy_from_slice(&ys);
    gpu.advise(&y, Advice::NoPreferredLocation)?;
    // SAFETY: as above.
    unsafe { m.axpy(&cfg, 3.0, &x, &mut y, n as i32)? };
    assert_close(
        y.as_slice().map_err(|e| Error::driver("as_slice", e))?,
        &axpy_ref(3.0, &xs, &ys),
        1e-6,
    );
    Ok(())
}

#[test]
fn registered_host_memory_serves_async_copies() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = kinds::load(&gpu)?;
    let n = 3 << 18;
    let mut rng = Rng::with_seed(62);
    let (xs, ys) = (rng.nonzero_f32s(n), rng.nonzero_f32s(n));
    let mut x_host = xs.clone();
    let mut y_host = ys.clone();
    let mut x = gpu.zeros::<f32>(n)?;
    let mut y = gpu.zeros::<f32>(n)?;
    {
        let xr = gpu.register(&mut x_host)?;
        let mut yr = gpu.register(&mut y_host)?;
        assert_eq!(yr.len(), n);
        let at = gpu.pointer_attributes(yr.as_slice()?.as_ptr() as u64)?;
        assert_eq!(at.memory_type, MemoryType::Host, "{at:?}");
        gpu.upload_async(&xr, &mut x)?;
        gpu.upload_async(&yr, &mut y)?;
        // SAFETY: axpy over n elements of both buffers.
        unsafe { m.axpy(&Launch::for_num_elems(n as u32), 1.5, &x, &mut y, n as i32)? };
        gpu.download_async(&y, &mut yr)?;
        assert_close(yr.as_slice()?, &axpy_ref(1.5, &xs, &ys), 1e-6);
        yr.as_mut_slice()?.fill(0.0);
        gpu.download_async(&x, &mut yr)?;
    } // both guards wait for their copies and unregister
    assert_eq!(
        y_host, xs,
        "the last download landed before the guard let go"
    );
    assert_eq!(x_host, xs);
    Ok(())
}

#[test]
fn pitched_images_round_trip_through_2d_copies() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = kinds::load(&gpu)?;
    let (w, h) = (300usize, 70usize);
    let host = Rng::with_seed(63).nonzero_f32s(w * h);
    let mut img = gpu.pitched::<f32>(w, h)?;
    assert!(img.pitch_elems() >= w && img.pitch_bytes() % 4 == 0);
    gpu.copy_2d(Region::host(&host, w), RegionMut::pitched(&mut img), w, h)?;
    let pitch = img.pitch_elems();
    let cfg = Launch::new(((w as u32).div_ceil(16), (h as u32).div_ceil(16)), (16, 16));
    // SAFETY: scale_2d touches x < w, y < h of the pitched image.
    unsafe { m.scale_2d(&cfg, &mut img, pitch, w as i32, h as i32, -2.0)? };
    let want: Vec<f32> = host.iter().map(|v| -2.0 * v).collect();
    let mut back = vec![0.0f32; w * h];
    gpu.copy_2d(Region::pitched(&img), RegionMut::host(&mut back, w), w, h)?;
    assert_close(&back, &want, 0.0);

    // A 32 × 16 block at (10, 5), device to device into a packed buffer, then to the host.
    let (bw, bh, bx, by) = (32usize, 16usize, 10usize, 5usize);
    let mut block = gpu.zeros::<f32>(bw * bh)?;
    gpu.copy_2d(
        Region::pitched(&img).at(bx, by),
        RegionMut::device(&mut block, bw),
        bw,
        bh,
    )?;
    let want_block: Vec<f32> = (0..bh)
        .flat_map(|r| want[(by + r) * w + bx..][..bw].to_vec())
        .collect();
    assert_close(&gpu.download(&block)?, &want_block, 0.0);

    // Pitched to pitched, into the middle of a larger image whose border stays zero.
    let mut big = gpu.pitched::<f32>(w + 8, h + 4)?;
    gpu.copy_2d(
        Region::pitched(&img),
        RegionMut::pitched(&mut big).at(4, 2),
        w,
        h,
    )?;
    let mut big_host = vec![0.0f32; (w + 8) * (h + 4)];
    gpu.copy_2d(
        Region::pitched(&big),
        RegionMut::host(&mut big_host, w + 8),
        w + 8,
        h + 4,
    )?;
    for r in 0..h + 4 {
        for c in 0..w + 8 {
            let inside = (2..h + 2).contains(&r) && (4..w + 4).contains(&c);
            let expected = if inside {
                want[(r - 2) * w + c - 4]
            } else {
                0.0
            };
            assert_eq!(big_host[r * (w + 8) + c], expected, "({c}, {r})");
        }
    }
    Ok(())
}

#[test]
fn pitched_volumes_round_trip_through_3d_copies() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = kinds::load(&gpu)?;
    let (w, h, d) = (40usize, 30usize, 6usize);
    let host = Rng::with_seed(64).nonzero_f32s(w * h * d);
    let mut vol = gpu.pitched_3d::<f32>(w, h, d)?;
    let src = Region::host(&host, w).rows_per_plane(h);
    gpu.copy_3d(src, RegionMut::pitched(&mut vol), [w, h, d])?;
    let cfg = Launch::new(
        ((w as u32).div_ceil(8), (h as u32).div_ceil(8), d as u32),
        (8, 8),
    );
    let pitch = vol.pitch_elems();
    // SAFETY: ramp_3d touches x < w, y < h, z < d of the pitched volume.
    unsafe { m.ramp_3d(&cfg, &mut vol, pitch, w as i32, h as i32, d as i32)? };
    let at = |x: usize, y: usize, z: usize| {
        // The kernel adds the (exact) ramp to the element: one rounding, as here.
        host[(z * h + y) * w + x] + (x as f32 + 10.0 * y as f32 + 100.0 * z as f32)
    };
    // A 7 × 5 × 3 box at (3, 4, 2) into a packed host box.
    let (bw, bh, bd) = (7usize, 5usize, 3usize);
    let mut boxed = vec![0.0f32; bw * bh * bd];
    gpu.copy_3d(
        Region::pitched(&vol).at_3d(3, 4, 2),
        RegionMut::host(&mut boxed, bw).rows_per_plane(bh),
        [bw, bh, bd],
    )?;
    for z in 0..bd {
        for y in 0..bh {
            for x in 0..bw {
                let got = boxed[(z * bh + y) * bw + x];
                assert_eq!(got, at(x + 3, y + 4, z + 2), "({x}, {y}, {z})");
            }
        }
    }
    // The whole volume back.
    let mut back = vec![0.0f32; w * h * d];
    gpu.copy_3d(
        Region::pitched(&vol),
        RegionMut::host(&mut back, w).rows_per_plane(h),
        [w, h, d],
    )?;
    for z in 0..d {
        for y in 0..h {
            for x in 0..w {
                assert_eq!(back[(z * h + y) * w + x], at(x, y, z), "({x}, {y}, {z})");
            }
        }
    }
    Ok(())
}

#[test]
fn copies_that_do_not_fit_are_refused_before_the_driver() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let host = vec![1.0f32; 64 * 8];
    let mut img = gpu.pitched::<f32>(64, 8)?;
    let err = gpu
        .copy_2d(
            Region::host(&host, 64).at(10, 0),
            RegionMut::pitched(&mut img),
            64,
            8,
        )
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, Error::OutOfRange { .. }) && text.contains("the source: elements 10..74"),
        "{text}"
    );
    let err = gpu
        .copy_2d(
            Region::host(&host, 64),
            RegionMut::pitched(&mut img).at(0, 1),
            64,
            8,
        )
        .unwrap_err();
    assert!(err.to_string().contains("the destination"), "{err}");
    let short = vec![0.0f32; 64 * 8 - 1];
    let err = gpu
        .copy_2d(
            Region::host(&short, 64),
            RegionMut::pitched(&mut img),
            64,
            8,
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("beyond the memory's 2044 bytes"),
        "{err}"
    );
    Ok(())
}

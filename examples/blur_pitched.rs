//! A 5×5 box blur of a 1000 × 700 image held in a pitched buffer: the image goes up with a 2D
//! copy from a packed host array into padded rows, one kernel reads and writes through the
//! pitch, and the result comes back with a 2D copy into packed rows, checked against a CPU
//! blur. A 2D copy then cuts a 64 × 48 tile out of the result on the device.

use std::process::ExitCode;

use cuda_kernel_runtime::{Error, Gpu, Launch, Region, RegionMut, cuda_module};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded};

cuda_module! {
    /// Image filters on pitched rows.
    mod filters {
        source = r#"
            #define R 2
            // out = mean of the (2R+1)² neighbours of each pixel, clamped at the edges.
            // `pitch` is the row pitch in elements of both images.
            extern "C" __global__ void box_blur(const float* in, float* out, size_t pitch,
                                                int w, int h) {
                int x = blockIdx.x * blockDim.x + threadIdx.x;
                int y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x >= w || y >= h) return;
                float sum = 0.0f;
                for (int dy = -R; dy <= R; ++dy) {
                    int yy = min(max(y + dy, 0), h - 1);
                    for (int dx = -R; dx <= R; ++dx) {
                        int xx = min(max(x + dx, 0), w - 1);
                        sum += in[yy * pitch + xx];
                    }
                }
                out[y * pitch + x] = sum / ((2 * R + 1) * (2 * R + 1));
            }
        "#;
    }
}

const W: usize = 1000;
const H: usize = 700;
const R: isize = 2;

fn main() -> ExitCode {
    kernel_examples::run("blur_pitched", &[embedded!(filters)], blur)
}

fn cpu_blur(img: &[f32]) -> Vec<f32> {
    let at = |x: isize, y: isize| {
        let (x, y) = (x.clamp(0, W as isize - 1), y.clamp(0, H as isize - 1));
        f64::from(img[y as usize * W + x as usize])
    };
    (0..W * H)
        .map(|i| {
            let (x, y) = ((i % W) as isize, (i / W) as isize);
            let mut sum = 0.0;
            for dy in -R..=R {
                for dx in -R..=R {
                    sum += at(x + dx, y + dy);
                }
            }
            (sum / 25.0) as f32
        })
        .collect()
}

fn blur(gpu: &Gpu) -> Result<Report, Error> {
    let image = Rng::with_seed(12).nonzero_f32s(W * H);
    let k = filters::load(gpu)?;
    let mut src = gpu.pitched::<f32>(W, H)?;
    let mut dst = gpu.pitched::<f32>(W, H)?;
    gpu.copy_2d(Region::host(&image, W), RegionMut::pitched(&mut src), W, H)?;
    let pitch = src.pitch_elems();
    let cfg = Launch::new(((W as u32).div_ceil(32), (H as u32).div_ceil(8)), (32, 8));
    let ((), took) = gpu.time(|| {
        // SAFETY: box_blur reads in[y * pitch + x] and writes out[y * pitch + x] for x < W,
        // y < H, inside both W × H pitched images (same pitch: same width and type).
        unsafe { k.box_blur(&cfg, &src, &mut dst, pitch, W as i32, H as i32) }
    })?;
    let mut blurred = vec![0.0f32; W * H];
    gpu.copy_2d(
        Region::pitched(&dst),
        RegionMut::host(&mut blurred, W),
        W,
        H,
    )?;
    let want = cpu_blur(&image);

    // A tile cut out on the device, packed.
    let (tx, ty, tw, th) = (300usize, 200usize, 64usize, 48usize);
    let mut tile = gpu.zeros::<f32>(tw * th)?;
    gpu.copy_2d(
        Region::pitched(&dst).at(tx, ty),
        RegionMut::device(&mut tile, tw),
        tw,
        th,
    )?;
    let want_tile: Vec<f32> = (0..th)
        .flat_map(|r| want[(ty + r) * W + tx..][..tw].to_vec())
        .collect();

    let mut report = Report::new("blur_pitched", gpu);
    report
        .fact("image", format!("{W} x {H} floats, 5 x 5 box"))
        .fact(
            "pitch",
            format!("{} bytes per row ({} used)", src.pitch_bytes(), W * 4),
        )
        .time("kernel", took, Some(((2 * W * H * 4) as f64 / 1e9, "GB/s")))
        .check("blur", compare(&blurred, &want, Tolerance::new(1e-6, 1e-5)))
        .check(
            "tile",
            compare(
                &gpu.download(&tile)?,
                &want_tile,
                Tolerance::new(1e-6, 1e-5),
            ),
        );
    Ok(report)
}

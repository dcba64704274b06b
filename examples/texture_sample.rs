//! Resampling an image through a texture: a 256 × 192 image in a CUDA array, read by a kernel
//! through a texture object with linear filtering and clamped, normalised coordinates, scaled
//! to 400 × 300 and rotated by 10°. The result is checked against a CPU bilinear sampler that
//! does what the texture unit does (weights in 9-bit fixed point, 8 fractional bits).

use std::process::ExitCode;

use cuda_kernel_runtime::{
    AddressMode, ArrayFormat, Error, FilterMode, Gpu, Launch, Region, RegionMut, TextureDesc,
    cuda_module,
};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded};

cuda_module! {
    /// Texture sampling.
    mod resample {
        source = r#"
            // out[y][x] = the image at the output pixel's centre, rotated by (c, s) about the
            // centre, in normalised texture coordinates.
            extern "C" __global__ void rotate_scale(cudaTextureObject_t image, float* out,
                                                    int w, int h, float c, float s) {
                int x = blockIdx.x * blockDim.x + threadIdx.x;
                int y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x >= w || y >= h) return;
                float u = (x + 0.5f) / w - 0.5f, v = (y + 0.5f) / h - 0.5f;
                float tu = c * u - s * v + 0.5f, tv = s * u + c * v + 0.5f;
                out[y * w + x] = tex2D<float>(image, tu, tv);
            }
        "#;
    }
}

const IW: usize = 256;
const IH: usize = 192;
const OW: usize = 400;
const OH: usize = 300;

fn main() -> ExitCode {
    kernel_examples::run("texture_sample", &[embedded!(resample)], sample)
}

/// One dimension of the texture unit's linear filter at unnormalised position `p`.
fn taps(p: f32, size: usize) -> (usize, usize, f64) {
    let b = p - 0.5;
    let i = b.floor();
    let alpha = (f64::from(b - i) * 256.0).round() / 256.0;
    let clamp = |k: f32| (k.max(0.0) as usize).min(size - 1);
    (clamp(i), clamp(i + 1.0), alpha)
}

fn cpu_sample(img: &[f32], c: f32, s: f32) -> Vec<f32> {
    (0..OW * OH)
        .map(|i| {
            let (x, y) = ((i % OW) as f32, (i / OW) as f32);
            let (u, v) = ((x + 0.5) / OW as f32 - 0.5, (y + 0.5) / OH as f32 - 0.5);
            let (tu, tv) = (c * u - s * v + 0.5, s * u + c * v + 0.5);
            let (x0, x1, a) = taps(tu * IW as f32, IW);
            let (y0, y1, b) = taps(tv * IH as f32, IH);
            let t = |xx: usize, yy: usize| f64::from(img[yy * IW + xx]);
            ((1.0 - a) * (1.0 - b) * t(x0, y0)
                + a * (1.0 - b) * t(x1, y0)
                + (1.0 - a) * b * t(x0, y1)
                + a * b * t(x1, y1)) as f32
        })
        .collect()
}

fn sample(gpu: &Gpu) -> Result<Report, Error> {
    let image = Rng::with_seed(13).nonzero_f32s(IW * IH);
    let k = resample::load(gpu)?;
    let mut array = gpu.array_2d(ArrayFormat::F32, 1, IW, IH)?;
    gpu.copy_2d(
        Region::host(&image, IW),
        RegionMut::array(&mut array),
        IW,
        IH,
    )?;
    let desc = TextureDesc::new()
        .address(AddressMode::Clamp)
        .filter(FilterMode::Linear)
        .normalized_coords(true);
    let texture = gpu.texture::<f32>(&array, &desc)?;
    let (c, s) = (10f32.to_radians().cos(), 10f32.to_radians().sin());
    let mut out = gpu.zeros::<f32>(OW * OH)?;
    let cfg = Launch::new(
        ((OW as u32).div_ceil(16), (OH as u32).div_ceil(16)),
        (16, 16),
    );
    let ((), took) = gpu.time(|| {
        // SAFETY: rotate_scale writes out[y * w + x] for x < OW, y < OH; out holds OW × OH.
        unsafe { k.rotate_scale(&cfg, &texture, &mut out, OW as i32, OH as i32, c, s) }
    })?;
    let got = gpu.download(&out)?;
    let want = cpu_sample(&image, c, s);
    // The unit rounds each weight to the nearest 1/256, as `taps` does (checked on an H200 at
    // 4096 positions between two texels), but it turns normalised coordinates into texel
    // positions in its own arithmetic: a position a rounding away from a 1/512 boundary can
    // round the other way, moving each of the two weights by 1/256 of a neighbours' difference
    // (texels are in ±2, so at most 4): allow 8/256. A wrong texel or coordinate is off by more.
    let mut report = Report::new("texture_sample", gpu);
    report
        .fact(
            "texture",
            format!("{IW} x {IH} f32, linear, clamped, normalised coordinates"),
        )
        .fact(
            "output",
            format!("{OW} x {OH}, scaled and rotated by 10 degrees"),
        )
        .time("kernel", took, None)
        .check(
            "samples",
            compare(&got, &want, Tolerance::new(8.0 / 256.0, 0.0)),
        );
    Ok(report)
}

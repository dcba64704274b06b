//! `__constant__` globals: a 1-D convolution whose taps and bias live in constant memory,
//! written from Rust through the generated typed accessors, then rewritten between launches.

use std::process::ExitCode;

use cuda_kernel_runtime::{Error, Gpu, Launch, TrackedBuffer, cuda_module};
use kernel_examples::{Comparison, NonZeroData, Report, Rng, Tolerance, compare, embedded};

cuda_module! {
    /// Convolution with a filter in constant memory.
    mod conv {
        source = r#"
            #define RADIUS 7

            __constant__ float taps[2 * RADIUS + 1];  // every thread reads the same tap at once
            __constant__ float bias;

            // y[i] = bias + sum_j taps[j] * x[i + j - RADIUS], zero outside [0, n).
            extern "C" __global__ void convolve(const float* x, float* y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i >= n) return;
                float acc = bias;
                #pragma unroll
                for (int j = 0; j <= 2 * RADIUS; ++j) {
                    int s = i + j - RADIUS;
                    if (s >= 0 && s < n) acc += taps[j] * x[s];
                }
                y[i] = acc;
            }
        "#;
        fn convolve(x: &[f32], y: &mut [f32], n: i32);
    }
}

const RADIUS: usize = 7;
const TAPS: usize = 2 * RADIUS + 1;
const N: usize = 1 << 20;

fn main() -> ExitCode {
    kernel_examples::run("constants", &[embedded!(conv)], constants)
}

fn constants(gpu: &Gpu) -> Result<Report, Error> {
    let mut rng = Rng::with_seed(6);
    let xs = rng.nonzero_f32s(N);
    let k = conv::load(gpu)?;
    let x = gpu.upload(&xs)?;
    let mut y = gpu.zeros::<f32>(N)?;
    let mut report = Report::new("constants", gpu);
    report.fact("elements", N).fact("taps", TAPS);
    // Two filters through the same loaded module: the globals change between launches.
    for round in 1..=2 {
        let taps: [f32; TAPS] = std::array::from_fn(|_| rng.nonzero_f32() / TAPS as f32);
        let bias = rng.nonzero_f32();
        k.taps()?.write(&taps)?;
        k.bias()?.write(&bias)?;
        let read_back = k.taps()?.read()?;
        report.check(
            &format!("taps read back ({round})"),
            compare(&read_back, &taps, Tolerance::EXACT),
        );
        let result = run_filter(gpu, &k, &x, &mut y, &xs, &taps, bias)?;
        report.check(&format!("y, filter {round}"), result);
    }
    Ok(report)
}

fn run_filter(
    gpu: &Gpu,
    k: &conv::Module,
    x: &TrackedBuffer<f32>,
    y: &mut TrackedBuffer<f32>,
    xs: &[f32],
    taps: &[f32; TAPS],
    bias: f32,
) -> Result<Comparison, Error> {
    // SAFETY: convolve reads x[s] for 0 <= s < n and writes y[i] for i < n; both hold n floats.
    unsafe { k.convolve(&Launch::for_num_elems(N as u32), x, &mut *y, N as i32)? };
    let got = gpu.download(y)?;
    let want: Vec<f32> = (0..N)
        .map(|i| {
            let mut acc = f64::from(bias);
            for (j, &t) in taps.iter().enumerate() {
                if let Some(&v) = (i + j).checked_sub(RADIUS).and_then(|s| xs.get(s)) {
                    acc += f64::from(t) * f64::from(v);
                }
            }
            acc as f32
        })
        .collect();
    Ok(compare(&got, &want, Tolerance::new(1e-5, 1e-5)))
}

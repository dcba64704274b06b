//! Host slices straight into a kernel: `In` (copied in), `Out` (a zeroed device buffer, copied
//! back) and `InOut` (both), next to an ordinary device buffer.

use std::process::ExitCode;

use cuda_kernel_runtime::{Error, Gpu, In, InOut, Launch, Out, cuda_module};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded};

cuda_module! {
    /// Kernels with one parameter of each direction.
    mod directions {
        source = r#"
            // For i < n: y[i] = s * x[i] (y is write-only), acc[i] += x[i] * w[i].
            extern "C" __global__ void scale_accumulate(const float* x, const float* w, float* y,
                                                        float* acc, float s, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) {
                    y[i] = s * x[i];
                    acc[i] += x[i] * w[i];
                }
            }
        "#;
        fn scale_accumulate(x: &[f32], w: &[f32], y: &mut [f32], acc: &mut [f32], s: f32, n: i32);
    }
}

const LEN: usize = 50_000;
/// The kernel covers the first `N` elements only: the tail of `y` shows that `Out` starts from
/// zeros, and the tail of `acc` that `InOut` keeps what the host had.
const N: usize = LEN - 1_000;

fn main() -> ExitCode {
    kernel_examples::run("host_buffers", &[embedded!(directions)], host_buffers)
}

fn host_buffers(gpu: &Gpu) -> Result<Report, Error> {
    let mut rng = Rng::with_seed(8);
    let s = rng.nonzero_f32();
    let (xs, ws) = (rng.nonzero_f32s(LEN), rng.nonzero_f32s(LEN));
    let acc_before = rng.nonzero_f32s(LEN);
    let mut acc = acc_before.clone();
    // Whatever `y` holds before is not sent: `Out` is write-only.
    let mut ys = rng.nonzero_f32s(LEN);

    let k = directions::load(gpu)?;
    let w = gpu.upload(&ws)?; // a device buffer, for contrast
    let cfg = Launch::for_num_elems(N as u32);
    // SAFETY: the kernel touches element i < n of each buffer; every buffer holds LEN >= n.
    unsafe {
        k.scale_accumulate(
            &cfg,
            In(&xs),
            &w,
            Out(&mut ys),
            InOut(&mut acc),
            s,
            N as i32,
        )?
    };

    let want_y: Vec<f32> = (0..LEN)
        .map(|i| if i < N { s * xs[i] } else { 0.0 })
        .collect();
    let want_acc: Vec<f32> = (0..LEN)
        .map(|i| {
            if i < N {
                xs[i].mul_add(ws[i], acc_before[i])
            } else {
                acc_before[i]
            }
        })
        .collect();
    let mut report = Report::new("host_buffers", gpu);
    report
        .fact("elements", format!("{LEN} (kernel covers {N})"))
        .fact("x", "In(&[f32]): copied to the device before the launch")
        .fact("w", "&CudaSlice<f32>: already on the device")
        .fact(
            "y",
            "Out(&mut [f32]): zeroed on the device, copied back after",
        )
        .fact("acc", "InOut(&mut [f32]): copied in and back")
        .check("y", compare(&ys, &want_y, Tolerance::EXACT))
        .check("acc", compare(&acc, &want_acc, Tolerance::new(1e-6, 1e-6)));
    Ok(report)
}

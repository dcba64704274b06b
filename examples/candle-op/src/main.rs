//! A candle custom operation whose CUDA side is a typed stub of `cuda_module!`.
//!
//! `ScaledSoftplus` computes `y = softplus(a * x + b)` (`softplus(t) = ln(1 + e^t)`) in one
//! pass. Its CPU side is plain Rust. Its CUDA side launches the kernel below through the stub
//! `cuda_module!` generates, on candle's own stream, reading the `CudaSlice<f32>` of candle's
//! storage and writing a new one that becomes candle's storage of the result: no copy, no second
//! stream, no synchronisation. The program runs the op on random data on the GPU and compares it
//! with candle's own tensor ops and with the CPU side.
//!
//! Exit status: 0 when every comparison passes, or when there is no GPU to run on (it prints
//! why it skips; with `KERNEL_REQUIRE_GPU=1` that is a failure instead); 1 on a mismatch; 2 on
//! any other error.

use std::process::ExitCode;

use candle_core::backend::BackendStorage;
use candle_core::{CpuStorage, CudaStorage, CustomOp1, Device, Layout, Shape, Tensor};
use cuda_kernel_runtime::{Gpu, Launch, cuda_module};

cuda_module! {
    /// The CUDA side of [`ScaledSoftplus`].
    mod kernels {
        source = r#"
            // y = softplus(a*x + b); past t = 20, ln(1 + e^t) is t to float precision.
            extern "C" __global__ void scaled_softplus(const float* x, float* y, float a, float b,
                                                       int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) {
                    float t = a * x[i] + b;
                    y[i] = t > 20.0f ? t : log1pf(expf(t));
                }
            }
        "#;
    }
}

/// `y = softplus(a * x + b)`, element by element, on `f32` tensors.
struct ScaledSoftplus {
    a: f32,
    b: f32,
}

impl ScaledSoftplus {
    /// One element, as the kernel computes it.
    fn one(&self, x: f32) -> f32 {
        let t = self.a * x + self.b;
        if t > 20.0 { t } else { t.exp().ln_1p() }
    }

    /// The same result from candle's own tensor ops: `softplus(t) = ln(e^t + 1)`.
    fn with_tensor_ops(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        x.affine(self.a.into(), self.b.into())?
            .exp()?
            .affine(1.0, 1.0)?
            .log()
    }
}

/// The element range of a contiguous layout (the op reads memory in order).
fn contiguous(layout: &Layout) -> candle_core::Result<(usize, usize)> {
    layout
        .contiguous_offsets()
        .ok_or_else(|| candle_core::Error::msg("scaled-softplus needs a contiguous tensor"))
}

impl CustomOp1 for ScaledSoftplus {
    fn name(&self) -> &'static str {
        "scaled-softplus"
    }

    fn cpu_fwd(
        &self,
        storage: &CpuStorage,
        layout: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let (start, end) = contiguous(layout)?;
        let x = &storage.as_slice::<f32>()?[start..end];
        let y = x.iter().map(|&v| self.one(v)).collect();
        Ok((CpuStorage::F32(y), layout.shape().clone()))
    }

    fn cuda_fwd(
        &self,
        storage: &CudaStorage,
        layout: &Layout,
    ) -> candle_core::Result<(CudaStorage, Shape)> {
        let (start, end) = contiguous(layout)?;
        let n = end - start;
        let count = i32::try_from(n).map_err(candle_core::Error::wrap)?;
        let threads = u32::try_from(n).map_err(candle_core::Error::wrap)?;
        let device = storage.device();
        // candle's stream; its context is the device's primary context, which `Gpu::new` opens
        // too (the same CUcontext). The handle launches on candle's stream, so the kernel runs
        // in order with candle's own work, before and after.
        let stream = device.cuda_stream();
        let gpu = Gpu::new(stream.context().ordinal())
            .map_err(candle_core::Error::wrap)?
            .with_stream(&stream);
        // Loaded into the context once; later calls find it in the device's module cache.
        let k = kernels::load(&gpu).map_err(candle_core::Error::wrap)?;

        let x = storage.as_cuda_slice::<f32>()?.slice(start..end);
        // SAFETY: the kernel writes every one of the `n` elements before anything reads them.
        let mut y = unsafe { device.alloc::<f32>(n) }?;
        // SAFETY: the kernel reads `x[i]` and writes `y[i]` for `i < n` only, and both hold `n`
        // floats; the stub's signature makes every argument's type the kernel's.
        unsafe {
            k.scaled_softplus(
                &Launch::for_num_elems(threads),
                &x,
                &mut y,
                self.a,
                self.b,
                count,
            )
        }
        .map_err(candle_core::Error::wrap)?;
        Ok((
            CudaStorage::wrap_cuda_slice(y, device.clone()),
            layout.shape().clone(),
        ))
    }
}

/// How far `got` is from `want`: the largest absolute difference, and whether every element is
/// within `1e-5` absolute plus `1e-5` relative.
fn compare(got: &[f32], want: &[f32]) -> (f32, bool) {
    let mut worst = 0.0f32;
    let mut ok = got.len() == want.len();
    for (&g, &w) in got.iter().zip(want) {
        let d = (g - w).abs();
        worst = worst.max(d);
        ok &= d <= 1e-5 + 1e-5 * w.abs();
    }
    (worst, ok)
}

enum Outcome {
    Pass,
    Fail,
    Skip(String),
}

fn run() -> candle_core::Result<Outcome> {
    // Ask the runtime first: it says why there is no GPU (no driver, the toolkit's stub
    // driver, no device) instead of failing.
    match Gpu::count() {
        Ok(0) => return Ok(Outcome::Skip("no CUDA device".to_owned())),
        Ok(_) => {}
        Err(e) => return Ok(Outcome::Skip(e.to_string())),
    }
    let cuda = match Device::new_cuda(0) {
        Ok(d) => d,
        Err(e) => return Ok(Outcome::Skip(format!("candle cannot open device 0: {e}"))),
    };
    let gpu = Gpu::new(0).map_err(candle_core::Error::wrap)?;
    let op = ScaledSoftplus { a: 1.5, b: 0.25 };

    // Random, non-zero data (normal, scale 2) made on the host; an odd size, so the last block
    // is partial.
    let full = Tensor::randn(0f32, 2f32, (1025, 1031), &Device::Cpu)?;
    let zeros = full
        .flatten_all()?
        .to_vec1::<f32>()?
        .iter()
        .filter(|v| **v == 0.0)
        .count();
    if zeros > 0 {
        return Err(candle_core::Error::msg(format!(
            "the random data holds {zeros} zeros"
        )));
    }
    println!(
        "candle-op: softplus({} * x + {}) on {} ({}), through candle's stream",
        op.a,
        op.b,
        gpu.name(),
        gpu.arch()
    );

    let mut pass = true;
    // The whole tensor, and rows 1.. of it (a storage read from an offset).
    for (what, x_cpu) in [
        ("whole", full.clone()),
        ("rows 1..", full.narrow(0, 1, 1024)?),
    ] {
        let x_gpu = x_cpu.to_device(&cuda)?;
        let ours = x_gpu.apply_op1_no_bwd(&op)?;
        let theirs = op.with_tensor_ops(&x_gpu)?;
        let cpu = x_cpu.apply_op1_no_bwd(&op)?;

        let ours = ours.flatten_all()?.to_vec1::<f32>()?;
        let theirs = theirs.flatten_all()?.to_vec1::<f32>()?;
        let cpu = cpu.flatten_all()?.to_vec1::<f32>()?;
        for (against, want) in [("candle's tensor ops", &theirs), ("the CPU op", &cpu)] {
            let (worst, ok) = compare(&ours, want);
            println!(
                "  {what} ({} elements): GPU stub vs {against}: max |diff| {worst:.2e}  {}",
                ours.len(),
                if ok { "PASS" } else { "FAIL" }
            );
            pass &= ok;
        }
    }
    Ok(if pass { Outcome::Pass } else { Outcome::Fail })
}

/// Whether a run without a GPU must fail instead of skipping (`KERNEL_REQUIRE_GPU=1`, as the
/// GPU runs of the repository's tests set it).
#[allow(clippy::disallowed_methods)] // a setting read when the program runs, not a build input
fn gpu_required() -> bool {
    std::env::var_os("KERNEL_REQUIRE_GPU").is_some_and(|v| v == "1")
}

fn main() -> ExitCode {
    match run() {
        Ok(Outcome::Pass) => {
            println!("PASS");
            ExitCode::SUCCESS
        }
        Ok(Outcome::Fail) => {
            println!("FAIL");
            ExitCode::from(1)
        }
        Ok(Outcome::Skip(why)) => {
            if gpu_required() {
                println!("FAIL: KERNEL_REQUIRE_GPU=1 and no GPU to run on: {why}");
                ExitCode::from(1)
            } else {
                println!("SKIP: no GPU to run on: {why}");
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_op_matches_candles_tensor_ops() -> candle_core::Result<()> {
        let op = ScaledSoftplus { a: 1.5, b: 0.25 };
        let full = Tensor::randn(0f32, 2f32, (33, 65), &Device::Cpu)?;
        for x in [full.clone(), full.narrow(0, 1, 32)?] {
            let ours = x.apply_op1_no_bwd(&op)?.flatten_all()?.to_vec1::<f32>()?;
            let theirs = op.with_tensor_ops(&x)?.flatten_all()?.to_vec1::<f32>()?;
            let (worst, ok) = compare(&ours, &theirs);
            assert!(ok, "max |diff| {worst}");
            assert_eq!(ours.len(), x.elem_count());
        }
        Ok(())
    }

    #[test]
    fn a_mismatch_is_caught() {
        assert!(compare(&[1.0, 2.0], &[1.0, 2.0]).1);
        assert!(!compare(&[1.0, 2.001], &[1.0, 2.0]).1);
        assert!(!compare(&[1.0], &[1.0, 2.0]).1);
    }
}

//! Kernels in `.cu` files sharing a header, compiled by `build.rs` with
//! `cuda_kernel_build::Build` and included with `cuda_kernel_runtime::include_kernels!`.
//!
//! [`run`] is the whole program; `src/main.rs` and `examples/buildrs.rs` both call it.

use std::process::ExitCode;

use cuda_kernel_runtime::{Error, Gpu, Launch};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded};

cuda_kernel_runtime::include_kernels!(signal);

pub mod particles;

/// A particle step whose types are defined once, in Rust ([`particles`]): `build.rs` writes
/// their CUDA declarations for `kernels/particles.cu`, and the stubs take the Rust types.
pub mod kernels {
    cuda_kernel_runtime::include_kernels!(sim);
}
pub use kernels::sim;

const N: usize = 1 << 20;

/// Runs both kernels of the `signal` module on device 0, checks them against the CPU, prints
/// the report and returns the exit status (2 when no GPU is usable).
///
/// ```no_run
/// let status: std::process::ExitCode = kernel_example_buildrs::run();
/// ```
pub fn run() -> ExitCode {
    kernel_examples::run("buildrs", &[embedded!(signal)], transform_then_blur)
}

fn transform_then_blur(gpu: &Gpu) -> Result<Report, Error> {
    let mut rng = Rng::with_seed(10);
    let t = signal::Affine {
        scale: rng.nonzero_f32(),
        offset: rng.nonzero_f32(),
    };
    let xs = rng.nonzero_f32s(N);
    let k = signal::load(gpu)?;
    let x = gpu.upload(&xs)?;
    let mut mapped = gpu.zeros::<f32>(N)?;
    let mut blurred = gpu.zeros::<f32>(N)?;
    let cfg = Launch::for_num_elems(N as u32);
    // SAFETY: both kernels touch elements i < n of their buffers only (the blur clamps its
    // neighbours into [0, n)); every buffer holds n floats.
    unsafe {
        k.transform(&cfg, t, &x, &mut mapped, N as i32)?;
        k.box_blur(&cfg, &mapped, &mut blurred, N as i32)?;
    }
    let got_mapped = gpu.download(&mapped)?;
    let got_blurred = gpu.download(&blurred)?;

    let want_mapped: Vec<f32> = xs.iter().map(|&v| t.scale.mul_add(v, t.offset)).collect();
    let at = |i: isize| want_mapped[i.clamp(0, N as isize - 1) as usize];
    let want_blurred: Vec<f32> = (0..N as isize)
        .map(|i| (at(i - 1) + at(i) + at(i + 1)) / 3.0)
        .collect();
    let mut report = Report::new("buildrs", gpu);
    report
        .fact("elements", N)
        .fact(
            "sources",
            "kernels/transform.cu, kernels/blur.cu + kernels/signal.h",
        )
        .check(
            "transform",
            compare(&got_mapped, &want_mapped, Tolerance::new(1e-6, 1e-6)),
        )
        .check(
            "box_blur",
            compare(&got_blurred, &want_blurred, Tolerance::new(1e-6, 1e-6)),
        );
    Ok(report)
}

/// The host functions of `kernels/hosted.cu` (C linkage), compiled into this crate by
/// `build.rs` (`Build::host_code`) and linked with the static CUDA runtime, with checked
/// bindings: each declaration below is checked against the C one when this crate compiles.
/// They work on the runtime's buffers and streams (one primary context), ordered with kernel
/// launches by the runtime's record of each buffer's uses.
pub mod host {
    use std::sync::Arc;

    use cuda_kernel_runtime::{CudaStream, Error, TrackedBuffer};

    cuda_kernel_runtime::include_kernels!(hosted);

    cuda_kernel_runtime::host_functions!(hosted {
        /// Launches `scale` (`x[i] *= s` for `i < n`) through the CUDA runtime on `stream`.
        pub fn hosted_scale(x: &mut TrackedBuffer<f32>, s: f32, n: i32, stream: &Arc<CudaStream>)
            -> Result<(), Error>;
        /// Copies `host[0..n)` into `dev` and scales it there, on the legacy default stream.
        pub fn hosted_upload_scaled(host: &[f32], dev: &mut TrackedBuffer<f32>, s: f32, n: i32)
            -> Result<(), Error>;
        /// Sets `x[0..n)` to zero on `stream`.
        pub fn hosted_clear(x: &mut TrackedBuffer<f32>, n: i32, stream: &Arc<CudaStream>)
            -> Result<(), Error>;
        /// Makes `ordinal` the CUDA runtime's current device.
        pub fn hosted_select_device(ordinal: i32) -> Result<(), Error>;
        /// The version of the CUDA runtime linked into the binary.
        pub fn hosted_runtime_version() -> i32;
        /// Sorts n (key, value) pairs by key with CUB's radix sort on `stream`.
        pub fn hosted_sort_pairs(
            keys_in: &TrackedBuffer<u32>,
            keys_out: &mut TrackedBuffer<u32>,
            values_in: &TrackedBuffer<f32>,
            values_out: &mut TrackedBuffer<f32>,
            n: i32,
            stream: &Arc<CudaStream>,
        ) -> Result<(), Error>;
        /// Writes the sum of `input[0..n)` to `out[0]` with CUB on `stream`.
        pub fn hosted_sum(input: &TrackedBuffer<f32>, out: &mut TrackedBuffer<f32>, n: i32,
            stream: &Arc<CudaStream>) -> Result<(), Error>;
        /// `out[i]` = the sum of `input[0..i)`, with CUB on `stream`.
        pub fn hosted_exclusive_scan(input: &TrackedBuffer<i32>, out: &mut TrackedBuffer<i32>, n: i32,
            stream: &Arc<CudaStream>) -> Result<(), Error>;
        /// `out[s]` = the sum of `input[offsets[s]..offsets[s + 1])`, with CUB on `stream`.
        pub fn hosted_segmented_sum(
            input: &TrackedBuffer<f32>,
            out: &mut TrackedBuffer<f32>,
            segments: i32,
            offsets: &TrackedBuffer<i32>,
            stream: &Arc<CudaStream>,
        ) -> Result<(), Error>;
        /// Sorts `values` by `keys` in place with Thrust on `stream`.
        pub fn hosted_thrust_sort_by_key(keys: &mut TrackedBuffer<u32>, values: &mut TrackedBuffer<f32>,
            n: i32, stream: &Arc<CudaStream>) -> Result<(), Error>;
    });
}

/// Matrix products with CUTLASS (`kernels/gemm.cu`), column-major as cuBLAS's, f32 accumulation;
/// and `relu_f16`, a kernel of the same module, through its typed stub.
pub mod gemm {
    use std::sync::Arc;

    use cuda_kernel_runtime::{CudaSlice, CudaStream, Error, bf16, f16};

    cuda_kernel_runtime::include_kernels!(gemm);

    cuda_kernel_runtime::host_functions!(gemm {
        /// `c = alpha * a * b + beta * c` in f16 (a: m x k, b: k x n, c: m x n, column-major;
        /// m, n, k multiples of 8) on `stream`.
        pub fn gemm_f16(m: i32, n: i32, k: i32, alpha: f32, a: &CudaSlice<f16>,
            b: &CudaSlice<f16>, beta: f32, c: &mut CudaSlice<f16>, stream: &Arc<CudaStream>)
            -> Result<(), Error>;
        /// As [`gemm_f16`], in bf16.
        pub fn gemm_bf16(m: i32, n: i32, k: i32, alpha: f32, a: &CudaSlice<bf16>,
            b: &CudaSlice<bf16>, beta: f32, c: &mut CudaSlice<bf16>, stream: &Arc<CudaStream>)
            -> Result<(), Error>;
    });
}

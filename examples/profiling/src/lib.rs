//! A workload whose launches a profiler can pick out: two kernels, launched inside the
//! program's own NVTX ranges (`profile::range`) and, with the runtime's `nvtx` feature, each
//! inside a range named `profiled::<kernel>` of the domain `cuda-kernel`.
//!
//! [`run`] makes these launches, in this order:
//!
//! | where                     | `scale` | `offset` |
//! |---------------------------|---------|----------|
//! | `range("warmup")`         | 0       | 2        |
//! | `range("phase")`          | 3       | 1        |
//! | outside the program's own | 2       | 0        |
//!
//! so `ncu --nvtx --nvtx-include "cuda-kernel@profiled::scale/"` profiles 5 launches of
//! `scale`, `"cuda-kernel@profiled::offset/"` 3 of `offset`, and `"cuda-kernel@phase/"` 3 of
//! `scale` and 1 of `offset` ([`EXPECTED`]).

use cuda_kernel_runtime::{Error, Gpu, Launch, TrackedBuffer, cuda_module, profile};

cuda_module! {
    /// Two small kernels to tell apart in a profile.
    pub mod profiled {
        source = r#"
            // x = a * x over the first n elements.
            extern "C" __global__ void scale(float* x, float a, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] *= a;
            }

            // x = x + b over the first n elements.
            extern "C" __global__ void offset(float* x, float b, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] += b;
            }
        "#;
        fn scale(x: &mut [f32], a: f32, n: i32);
        fn offset(x: &mut [f32], b: f32, n: i32);
    }
}

/// What an NVTX filter of Nsight Compute should profile of [`run`]'s launches: the filter's
/// range (within the domain [`profile::DOMAIN`]), then how many launches of `scale` and of
/// `offset` it holds.
///
/// ```
/// let (range, scale, offset) = cuda_kernel_profiling_example::EXPECTED[2];
/// assert_eq!((range, scale, offset), ("phase", 3, 1));
/// ```
pub const EXPECTED: [(&str, usize, usize); 3] = [
    ("profiled::scale", 5, 0),
    ("profiled::offset", 0, 3),
    ("phase", 3, 1),
];

/// The factor of `scale` and the addend of `offset`.
const A: f32 = 2.0;
const B: f32 = 1.0;

/// Runs the launches of the table above on `x` and returns the result.
///
/// ```no_run
/// let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let y = cuda_kernel_profiling_example::run(&gpu, &[1.0, 2.0])?;
/// assert_eq!(y, cuda_kernel_profiling_example::reference(&[1.0, 2.0]));
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub fn run(gpu: &Gpu, x: &[f32]) -> Result<Vec<f32>, Error> {
    let m = profiled::load(gpu)?;
    let n = x.len() as i32;
    let cfg = Launch::for_num_elems(x.len() as u32);
    let mut buf = gpu.upload(x)?;
    // SAFETY: `scale` touches x[0..n) only, and the buffer holds n.
    let scale = |buf: &mut TrackedBuffer<f32>| unsafe { m.scale(&cfg, buf, A, n) };
    // SAFETY: `offset` touches x[0..n) only, and the buffer holds n.
    let offset = |buf: &mut TrackedBuffer<f32>| unsafe { m.offset(&cfg, buf, B, n) };
    {
        let _warmup = profile::range("warmup");
        offset(&mut buf)?;
        offset(&mut buf)?;
    }
    {
        let _phase = profile::range("phase");
        for _ in 0..3 {
            scale(&mut buf)?;
        }
        offset(&mut buf)?;
    }
    scale(&mut buf)?;
    scale(&mut buf)?;
    gpu.download(&buf)
}

/// What [`run`] computes, on the CPU: every step is one correctly rounded operation, so the
/// GPU's result is the same to the bit.
///
/// ```
/// assert_eq!(cuda_kernel_profiling_example::reference(&[1.0]), vec![(8.0 * 3.0 + 1.0) * 4.0]);
/// ```
pub fn reference(x: &[f32]) -> Vec<f32> {
    x.iter()
        .map(|&v| {
            let mut v = v + B + B;
            for _ in 0..3 {
                v *= A;
            }
            v += B;
            v * A * A
        })
        .collect()
}

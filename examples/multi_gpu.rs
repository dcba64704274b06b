//! The same module on every GPU of the machine, then an NCCL all-reduce through cudarc.
//!
//! Each device `r` computes `y_r = s_r * x_r * x_r` on its own data; a sum all-reduce leaves
//! `sum_r y_r` on every device, checked against the CPU. With one GPU the world has one rank
//! (the all-reduce is a copy) and the report says so. Needs `--features nccl` and `libnccl` at
//! run time.

use std::fmt;
use std::process::ExitCode;
use std::sync::Arc;

use cuda_kernel_runtime::cudarc::nccl::{self, Comm, ReduceOp};
use cuda_kernel_runtime::{CudaSlice, CudaStream, Error, Gpu, Launch, cuda_module};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded};

cuda_module! {
    /// The per-device work.
    mod square {
        source = r#"
            // y = s * x * x for the first n elements.
            extern "C" __global__ void scaled_square(const float* x, float* y, float s, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = s * x[i] * x[i];
            }
        "#;
        fn scaled_square(x: &[f32], y: &mut [f32], s: f32, n: i32);
    }
}

const N: usize = 1 << 20;

fn main() -> ExitCode {
    kernel_examples::run("multi_gpu", &[embedded!(square)], multi_gpu)
}

/// A runtime error, or an NCCL one (cudarc's NCCL errors carry only the result code).
enum Failure {
    Runtime(Error),
    Nccl(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Runtime(e)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Runtime(e) => e.fmt(f),
            Failure::Nccl(what) => f.write_str(what),
        }
    }
}

fn nccl_failure(call: &str) -> impl FnOnce(nccl::result::NcclError) -> Failure + '_ {
    move |e| Failure::Nccl(format!("{call} failed: {:?}", e.0))
}

fn multi_gpu(_first: &Gpu) -> Result<Report, Failure> {
    // SAFETY: only tries to open the library and closes it again.
    if !unsafe { nccl::sys::is_culib_present() } {
        return Err(Failure::Nccl(
            "the NCCL library (libnccl.so.2) was not found: install NCCL or add its directory \
             to LD_LIBRARY_PATH"
                .to_owned(),
        ));
    }
    let count = Gpu::count()?;
    let gpus = (0..count).map(Gpu::new).collect::<Result<Vec<_>, _>>()?;
    // One stream per device, shared by the kernel, the all-reduce and the copies.
    let streams = gpus
        .iter()
        .map(Gpu::new_stream)
        .collect::<Result<Vec<Arc<CudaStream>>, _>>()?;
    let handles: Vec<Gpu> = gpus
        .iter()
        .zip(&streams)
        .map(|(g, s)| g.with_stream(s))
        .collect();
    let comms = Comm::from_devices(streams.clone()).map_err(nccl_failure("ncclCommInitAll"))?;

    let mut rng = Rng::with_seed(9);
    let scales: Vec<f32> = (0..count).map(|_| rng.nonzero_f32()).collect();
    let inputs: Vec<Vec<f32>> = (0..count).map(|_| rng.nonzero_f32s(N)).collect();
    let mut sums: Vec<CudaSlice<f32>> = Vec::with_capacity(count);
    let mut products: Vec<CudaSlice<f32>> = Vec::with_capacity(count);
    for ((gpu, xs), &s) in handles.iter().zip(&inputs).zip(&scales) {
        let k = square::load(gpu)?;
        let x = gpu.upload(xs)?;
        let mut y = gpu.zeros::<f32>(N)?;
        // SAFETY: scaled_square touches x[i] and y[i] for i < n; both hold n floats.
        unsafe { k.scaled_square(&Launch::for_num_elems(N as u32), &x, &mut y, s, N as i32)? };
        products.push(y);
        sums.push(gpu.zeros::<f32>(N)?);
    }
    // One thread drives every device: the collectives go in one NCCL group.
    nccl::group_start().map_err(nccl_failure("ncclGroupStart"))?;
    for ((comm, y), sum) in comms.iter().zip(&products).zip(&mut sums) {
        comm.all_reduce(y, sum, &ReduceOp::Sum)
            .map_err(nccl_failure("ncclAllReduce"))?;
    }
    nccl::group_end().map_err(nccl_failure("ncclGroupEnd"))?;

    let want: Vec<f32> = (0..N)
        .map(|i| {
            let total: f64 = inputs
                .iter()
                .zip(&scales)
                .map(|(xs, &s)| f64::from(s * xs[i] * xs[i]))
                .sum();
            total as f32
        })
        .collect();
    let mut report = Report::titled("multi_gpu");
    report.fact(
        "world",
        if count == 1 {
            "1 rank (one GPU: the all-reduce is a copy)".to_owned()
        } else {
            format!("{count} ranks")
        },
    );
    for gpu in &gpus {
        report.fact(
            &format!("device {}", gpu.ordinal()),
            format!("{} ({})", gpu.name(), gpu.arch()),
        );
    }
    report.fact("elements per rank", N);
    for (gpu, sum) in handles.iter().zip(&sums) {
        let got = gpu.download(sum)?;
        // Each term is rounded once in float on both sides; the sum order may differ.
        let tol = Tolerance::new(1e-6 * count as f64, 1e-5);
        report.check(
            &format!("sum on device {}", gpu.ordinal()),
            compare(&got, &want, tol),
        );
    }
    Ok(report)
}

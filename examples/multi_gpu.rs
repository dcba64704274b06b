//! The same module on every GPU of the machine, then an NCCL all-reduce through the
//! runtime's collectives.
//!
//! Each device `r` computes `y_r = s_r * x_r * x_r` on its own data; a sum all-reduce leaves
//! `sum_r y_r` on every device, checked against the CPU. With one GPU the world has one rank
//! (the all-reduce is a copy) and the report says so. Needs `--features nccl` and `libnccl` at
//! run time.

use std::process::ExitCode;

use cuda_kernel_runtime::{
    Communicator, Error, Gpu, Group, Launch, ReduceOp, TrackedBuffer, cuda_module,
};
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

fn multi_gpu(_first: &Gpu) -> Result<Report, Error> {
    let count = Gpu::count()?;
    let gpus = (0..count).map(Gpu::new).collect::<Result<Vec<_>, _>>()?;
    // One communicator per device (`ncclCommInitAll`); NCCL is opened here, and its absence
    // is an error naming libnccl.so.2.
    let comms = Communicator::for_gpus(&gpus)?;

    let mut rng = Rng::with_seed(9);
    let scales: Vec<f32> = (0..count).map(|_| rng.nonzero_f32()).collect();
    let inputs: Vec<Vec<f32>> = (0..count).map(|_| rng.nonzero_f32s(N)).collect();
    let mut sums: Vec<TrackedBuffer<f32>> = Vec::with_capacity(count);
    let mut products: Vec<TrackedBuffer<f32>> = Vec::with_capacity(count);
    for ((gpu, xs), &s) in gpus.iter().zip(&inputs).zip(&scales) {
        let k = square::load(gpu)?;
        let x = gpu.upload(xs)?;
        let mut y = gpu.zeros::<f32>(N)?;
        // SAFETY: scaled_square touches x[i] and y[i] for i < n; both hold n floats.
        unsafe { k.scaled_square(&Launch::for_num_elems(N as u32), &x, &mut y, s, N as i32)? };
        products.push(y);
        sums.push(gpu.zeros::<f32>(N)?);
    }
    // One thread drives every device: the collectives go in one group, each ordered after
    // the kernel that wrote its input.
    let mut group = Group::start()?;
    for ((comm, y), sum) in comms.iter().zip(&products).zip(&mut sums) {
        group.all_reduce(comm, y, sum, &ReduceOp::Sum)?;
    }
    group.end()?;

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
    for (gpu, sum) in gpus.iter().zip(&sums) {
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

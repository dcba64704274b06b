//! Existing CUDA C++ between our own typed launches, all on one stream: a typed kernel scales
//! the values, CUB sorts them by random keys and scans counts, CUTLASS multiplies the sorted
//! values (as a matrix) with another one, and a typed kernel applies a ReLU to the product.
//! Every step is checked against the CPU.
//!
//! ```text
//! cargo run -p kernel-example-buildrs --example existing_cuda
//! ```

use std::process::ExitCode;

use cuda_kernel_runtime::{Error, Gpu, Launch, f16};
use kernel_example_buildrs::gemm::{self, gemm_f16};
use kernel_example_buildrs::host::{hosted, hosted_exclusive_scan, hosted_sort_pairs};

fn main() -> ExitCode {
    match Gpu::new(0) {
        Ok(gpu) => match run(&gpu) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("existing_cuda: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("existing_cuda: no GPU: {e}");
            ExitCode::from(2)
        }
    }
}

/// A small deterministic generator (xorshift), so the example needs no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
}

/// Runs the four steps; true when every one matches the CPU.
fn run(gpu: &Gpu) -> Result<bool, Error> {
    let (m, n, k) = (256usize, 128usize, 64usize);
    let stream = gpu.stream();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let values: Vec<f32> = (0..m * k).map(|_| rng.unit()).collect();
    let keys: Vec<u32> = (0..m * k).map(|_| rng.next() as u32).collect();
    let counts: Vec<i32> = (0..m * k).map(|_| (rng.next() % 7) as i32).collect();

    // 1. Our kernel: values *= 0.5.
    let hosted_k = hosted::load(gpu)?;
    let mut dv = gpu.upload(&values)?;
    // SAFETY: dv holds m * k floats.
    unsafe {
        hosted_k.scale(
            &Launch::for_num_elems((m * k) as u32),
            &mut dv,
            0.5,
            (m * k) as i32,
        )?
    };

    // 2. CUB: sort the values by the keys; exclusive scan of the counts.
    let dk = gpu.upload(&keys)?;
    let (mut sorted_k, mut sorted_v) = (gpu.zeros::<u32>(m * k)?, gpu.zeros::<f32>(m * k)?);
    let dc = gpu.upload(&counts)?;
    let mut offsets = gpu.zeros::<i32>(m * k)?;
    // SAFETY: every buffer holds m * k elements.
    unsafe {
        hosted_sort_pairs(
            &dk,
            &mut sorted_k,
            &dv,
            &mut sorted_v,
            (m * k) as i32,
            stream,
        )?;
        hosted_exclusive_scan(&dc, &mut offsets, (m * k) as i32, stream)?;
    }

    // 3. CUTLASS: C = A * B with A the sorted values as an m x k matrix (f16).
    let a: Vec<f16> = gpu
        .download(&sorted_v)?
        .iter()
        .map(|&v| f16::from_f32(v))
        .collect();
    let b: Vec<f16> = (0..k * n).map(|_| f16::from_f32(rng.unit())).collect();
    // The GEMM bindings are declared on cudarc's `CudaSlice` (so that cuBLAS through cudarc
    // takes the same buffers); kernels and the runtime's copies take both kinds.
    let (da, db) = (stream.clone_htod(&a)?, stream.clone_htod(&b)?);
    let mut dc16 = stream.alloc_zeros::<f16>(m * n)?;
    // SAFETY: a is m x k, b k x n, c m x n (column-major), multiples of 8.
    unsafe {
        gemm_f16(
            m as i32, n as i32, k as i32, 1.0, &da, &db, 0.0, &mut dc16, stream,
        )?
    };

    // 4. Our kernel: ReLU on the product.
    let gemm_k = gemm::gemm::load(gpu)?;
    // SAFETY: dc16 holds m * n halves.
    unsafe {
        gemm_k.relu_f16(
            &Launch::for_num_elems((m * n) as u32),
            &mut dc16,
            (m * n) as i32,
        )?
    };
    let got = gpu.download(&dc16)?;

    // The CPU's answer for each step.
    let mut pairs: Vec<(u32, f32)> = keys
        .iter()
        .zip(&values)
        .map(|(&key, &v)| (key, 0.5 * v))
        .collect();
    pairs.sort_by_key(|p| p.0);
    let sorted_ok = gpu.download(&sorted_k)? == pairs.iter().map(|p| p.0).collect::<Vec<_>>();
    let mut acc = 0;
    let want_offsets: Vec<i32> = counts
        .iter()
        .map(|c| {
            let before = acc;
            acc += c;
            before
        })
        .collect();
    let scan_ok = gpu.download(&offsets)? == want_offsets;
    let mut worst = 0.0f32;
    for j in 0..n {
        for i in 0..m {
            let mut s = 0.0f32;
            for p in 0..k {
                s += a[i + p * m].to_f32() * b[p + j * k].to_f32();
            }
            let want = s.max(0.0);
            worst = worst.max((got[i + j * m].to_f32() - want).abs() / want.abs().max(1.0));
        }
    }
    println!("existing_cuda on {}", gpu.name());
    println!(
        "  scale (typed kernel) + CUB radix sort of {} pairs: {}",
        m * k,
        ok(sorted_ok)
    );
    println!(
        "  CUB exclusive scan of {} counts:                 {}",
        m * k,
        ok(scan_ok)
    );
    println!(
        "  CUTLASS f16 GEMM {m}x{n}x{k} + relu (typed kernel): worst relative error {worst:.2e}: {}",
        ok(worst < 2e-2)
    );
    Ok(sorted_ok && scan_ok && worst < 2e-2)
}

fn ok(pass: bool) -> &'static str {
    if pass { "PASS" } else { "FAIL" }
}

//! Throughput of host C++ called through checked bindings, beside cuBLAS in the same process:
//! CUB's radix sort of (u32, f32) pairs (keys per second) and CUTLASS's f16 and bf16 products
//! (TFLOP/s) against cuBLAS's on the same buffers and stream.
//!
//! ```text
//! cargo run --release -p kernel-example-buildrs --example host_bench [-- SIZE]
//! ```

use std::time::Instant;

use cuda_kernel_runtime::{Error, Gpu, bf16, f16};
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, sys::cublasOperation_t};
use kernel_example_buildrs::gemm::{gemm_bf16, gemm_f16};
use kernel_example_buildrs::host::hosted_sort_pairs;

fn main() -> Result<(), Error> {
    let gpu = Gpu::new(0)?;
    let size: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(8192);
    let stream = gpu.stream();
    println!("host_bench on {}", gpu.name());

    // CUB radix sort of 2^25 pairs.
    let n = 1usize << 25;
    let keys: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let values: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let (dk, dv) = (gpu.upload(&keys)?, gpu.upload(&values)?);
    let (mut ok, mut ov) = (gpu.zeros::<u32>(n)?, gpu.zeros::<f32>(n)?);
    let sort = |ok: &mut _, ov: &mut _| -> Result<(), Error> {
        // SAFETY: every buffer holds n elements.
        unsafe { hosted_sort_pairs(&dk, ok, &dv, ov, n as i32, stream) }
    };
    sort(&mut ok, &mut ov)?;
    stream.synchronize().map_err(Error::from)?;
    let reps = 20;
    let t = Instant::now();
    for _ in 0..reps {
        sort(&mut ok, &mut ov)?;
    }
    stream.synchronize().map_err(Error::from)?;
    let per = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "CUB radix sort pairs  n=2^25 u32/f32   {:8.3} ms   {:7.2} Gkeys/s",
        per * 1e3,
        n as f64 / per / 1e9
    );

    // CUTLASS vs cuBLAS, size^3.
    let blas = CudaBlas::new(stream.clone()).map_err(|e| Error::Unsupported {
        what: "cuBLAS",
        device: gpu.name().to_owned(),
        reason: e.to_string(),
    })?;
    let (m, nn, k) = (size, size, size);
    let flops = 2.0 * (m * nn * k) as f64;
    macro_rules! compare {
        ($t:ty, $label:literal, $ours:ident) => {{
            let a: Vec<$t> = (0..m * k).map(|i| <$t>::from_f32(((i % 7) as f32 - 3.0) / 8.0)).collect();
            let b: Vec<$t> = (0..k * nn).map(|i| <$t>::from_f32(((i % 5) as f32 - 2.0) / 8.0)).collect();
            // cudarc's buffers: cuBLAS (through cudarc) takes them, and so do the bindings.
            let (da, db) = (stream.clone_htod(&a)?, stream.clone_htod(&b)?);
            let mut c = stream.alloc_zeros::<$t>(m * nn)?;
            let cfg = GemmConfig {
                transa: cublasOperation_t::CUBLAS_OP_N,
                transb: cublasOperation_t::CUBLAS_OP_N,
                m: m as i32,
                n: nn as i32,
                k: k as i32,
                alpha: <$t>::from_f32(1.0),
                lda: m as i32,
                ldb: k as i32,
                beta: <$t>::from_f32(0.0),
                ldc: m as i32,
            };
            let time = |which: &str, c: &mut cuda_kernel_runtime::CudaSlice<$t>| -> Result<f64, Error> {
                let run = |c: &mut cuda_kernel_runtime::CudaSlice<$t>| -> Result<(), Error> {
                    if which == "cutlass" {
                        // SAFETY: a is m x k, b k x n, c m x n, multiples of 8.
                        unsafe { $ours(m as i32, nn as i32, k as i32, 1.0, &da, &db, 0.0, c, stream) }
                    } else {
                        // SAFETY: as above.
                        unsafe { blas.gemm(cfg, &da, &db, c) }.map_err(|e| Error::Unsupported {
                            what: "cuBLAS gemm",
                            device: String::new(),
                            reason: e.to_string(),
                        })
                    }
                };
                for _ in 0..3 {
                    run(c)?;
                }
                stream.synchronize().map_err(Error::from)?;
                let reps = 10;
                let t = Instant::now();
                for _ in 0..reps {
                    run(c)?;
                }
                stream.synchronize().map_err(Error::from)?;
                Ok(t.elapsed().as_secs_f64() / reps as f64)
            };
            let ours = time("cutlass", &mut c)?;
            let theirs = time("cublas", &mut c)?;
            println!(
                "{} GEMM {m}x{nn}x{k}: CUTLASS {:7.1} TFLOP/s  cuBLAS {:7.1} TFLOP/s  ({:5.1}% of cuBLAS)",
                $label,
                flops / ours / 1e12,
                flops / theirs / 1e12,
                100.0 * theirs / ours
            );
        }};
    }
    compare!(f16, "f16 ", gemm_f16);
    compare!(bf16, "bf16", gemm_bf16);
    Ok(())
}

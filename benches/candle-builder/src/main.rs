//! candle-kernels' PTX build, as its `build.rs` runs it, on a folder of candle's sources:
//!
//! ```text
//! CUDA_COMPUTE_CAP=90 candle-builder SRC_DIR OUT_DIR
//! ```
//!
//! `SRC_DIR` is candle-kernels' `src` folder (0.11.1), `OUT_DIR` where the PTX files, the
//! `ptx.rs` bindings and cudaforge's incremental-build record go (what Cargo's `OUT_DIR` is
//! to the build script): empty for a cold build, the previous run's for an incremental one.
//! The builder is configured exactly as candle-kernels 0.11.1's `build.rs` configures its
//! PTX build (the same source folder scan, exclusions and nvcc arguments); cudaforge reads
//! `CUDA_COMPUTE_CAP`, `NVCC` and its thread settings from the environment as it does
//! there. The static library of MoE and GGUF kernels that the same `build.rs` also builds
//! is not part of the PTX set and is not built.

use cudaforge::KernelBuilder;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [src, out] = args.as_slice() else {
        eprintln!("usage: CUDA_COMPUTE_CAP=90 candle-builder SRC_DIR OUT_DIR");
        return ExitCode::from(2);
    };
    let out = PathBuf::from(out);
    let started = Instant::now();
    // candle-kernels 0.11.1 build.rs, the PTX part, with `OUT_DIR` given here.
    let built = KernelBuilder::new()
        .source_dir(src)
        .exclude(&["moe_*.cu", "mmvq_gguf.cu", "mmq_*.cu"])
        .arg("--expt-relaxed-constexpr")
        .arg("-std=c++17")
        .arg("-O3")
        .out_dir(&out)
        .build_ptx()
        .and_then(|bindings| bindings.write(out.join("ptx.rs")));
    match built {
        Ok(()) => {
            eprintln!(
                "candle-builder: PTX build done in {:.2} s",
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("candle-builder: {e}");
            ExitCode::FAILURE
        }
    }
}

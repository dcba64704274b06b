//! Compiles `kernels/*.cu` (which share `kernels/signal.h`) into one module, `signal`, with
//! its fatbin, metadata and typed Rust stubs in `$OUT_DIR`; and `kernels/hosted.cu`, whose
//! host functions (a launcher, CUB calls) are compiled into the crate too (`host_code`); and
//! `kernels/gemm.cu`, CUTLASS matrix products called from host functions; and
//! `kernels/particles.cu`, over types defined once in `src/particles.rs` (`sim`).

fn main() {
    // Kernels over types defined in Rust (`src/particles.rs`): the header they include is
    // written from the Rust definitions, and the stubs take those types.
    cuda_kernel_build::Build::new()
        .file("kernels/particles.cu")
        .rust_types("src/particles.rs")
        .compile("sim");
    cuda_kernel_build::Build::new()
        .file("kernels/transform.cu")
        .file("kernels/blur.cu")
        .include("kernels")
        .define("BLOCK", "256")
        .compile("signal");
    cuda_kernel_build::Build::new()
        .file("kernels/hosted.cu")
        .archs(["sm_80", "sm_90"])
        .host_code(true)
        .compile("hosted");
    // CUTLASS matrix products (headers from `cuda-kernel-inspect toolkit install --with cutlass`).
    cuda_kernel_build::Build::new()
        .file("kernels/gemm.cu")
        .archs(["sm_80", "sm_90"])
        // As CUTLASS's own build: its headers call constexpr host functions from device code.
        .flag("--expt-relaxed-constexpr")
        .host_code(true)
        .compile("gemm");
}

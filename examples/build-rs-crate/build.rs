//! Compiles `kernels/*.cu` (which share `kernels/signal.h`) into one module, `signal`, with
//! its fatbin, metadata and typed Rust stubs in `$OUT_DIR`.

fn main() {
    kernel_build::Build::new()
        .file("kernels/transform.cu")
        .file("kernels/blur.cu")
        .include("kernels")
        .define("BLOCK", "256")
        .compile("signal");
}

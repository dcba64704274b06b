// The inline macro shows nvcc's warnings (here: an unused variable) and the build's own
// (a kernel missing from one target's image), as the build.rs door prints them; the crate
// then fails on a Rust error of its own, so that trybuild records what was shown.
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void fill(float* x) { int unused; x[0] = 1.0f; }
            #if __CUDA_ARCH__ >= 900
            extern "C" __global__ void hopper_only(float* x) { x[0] = 2.0f; }
            #endif
        "#;
        arch = ["sm_80", "sm_90"];
    }
}

fn main() {
    let _: u8 = "not a number";
}

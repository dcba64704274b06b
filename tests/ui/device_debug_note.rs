// A debug build of device code (`device_debug = true`, nvcc's `-G`) is never silent: the
// macro says its kernels run slowly, as the build.rs door prints it; the crate then fails on a
// Rust error of its own, so that trybuild records what was shown.
cuda_kernel_runtime::cuda_module! {
    mod k {
        device_debug = true;
        source = r#"
            extern "C" __global__ void fill(float* x) { x[0] = 1.0f; }
        "#;
        arch = ["sm_90"];
    }
}

fn main() {
    let _: u8 = "not a number";
}

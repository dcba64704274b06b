// A kernel compiled out for one of the targets is missing from that image: an error
// when the module requires every target to hold every kernel (by default it is a kernel
// available on sm_90 only).
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            #if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
            extern "C" __global__ void hopper_only(float* x) { x[0] = 1.0f; }
            #endif
            extern "C" __global__ void everywhere(float* x) { x[0] = 2.0f; }
        "#;
        arch = ["sm_80", "sm_90"];
        require_every_target = true;
    }
}

fn main() {}

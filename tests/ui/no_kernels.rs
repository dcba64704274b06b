// A source with device code but no `__global__` kernel has nothing to launch.
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            __device__ float twice(float x) { return 2.0f * x; }
        "#;
        arch = ["sm_80"];
    }
}

fn main() {}

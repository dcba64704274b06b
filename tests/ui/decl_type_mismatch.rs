// Declared Rust types are checked against the CUDA declaration; every mismatch is
// reported at the Rust type, with the CUDA location.
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * x[i] + y[i];
            }
        "#;
        arch = ["sm_80"];
        fn saxpy(a: f64, x: &[f32], y: &mut [i32], n: i32);
    }
}

fn main() {}

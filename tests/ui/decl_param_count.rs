// A declaration with the wrong number of parameters.
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * x[i] + y[i];
            }
        "#;
        arch = ["sm_80"];
        fn saxpy(a: f32, x: &[f32], y: &mut [f32]);
    }
}

fn main() {}

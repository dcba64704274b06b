// `const T*` is a shared borrow, `T*` an exclusive one; both directions are errors.
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * x[i] + y[i];
            }
        "#;
        arch = ["sm_80"];
        fn saxpy(a: f32, x: &mut [f32], y: &[f32], n: i32);
    }
}

fn main() {}

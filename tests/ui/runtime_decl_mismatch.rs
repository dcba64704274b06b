// A module compiled at run time is still checked at build time: the Rust declaration must
// match the CUDA one, read without nvcc.
cuda_kernel_runtime::cuda_module! {
    mod k {
        compile = "runtime";
        source = r#"
            extern "C" __global__ void scale(float* x, float a, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] *= a;
            }
        "#;
        fn scale(x: &mut [f32], a: f64, n: i32);
    }
}

fn main() {}

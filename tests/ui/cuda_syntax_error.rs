// An nvcc error in inline source is reported at the source literal with nvcc's text.
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void fill(float* x, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x
                if (i < n) x[i] = 0.0f;
            }
        "#;
        arch = ["sm_80"];
    }
}

fn main() {}

// A parameter type that CUDA does not know.
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void fill(real_t* x, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] = 0;
            }
        "#;
        arch = ["sm_80"];
    }
}

fn main() {}

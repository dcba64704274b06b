// One kernel declared with different parameter types under different `__CUDA_ARCH__`:
// one Rust stub cannot serve both targets.
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            #if __CUDA_ARCH__ >= 900
            typedef double real;
            #else
            typedef float real;
            #endif
            extern "C" __global__ void scale(real* x, real s, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] *= s;
            }
        "#;
        arch = ["sm_80", "sm_90"];
    }
}

fn main() {}

// Stubs are `unsafe fn` unless the crate vouches for the kernel in an
// `unsafe extern` block with `safe fn`.
use cuda_kernel_runtime::{cuda_module, CudaSlice, Launch};

cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void zero(float* x, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] = 0.0f;
            }
            extern "C" __global__ void zero_checked(float* x, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] = 0.0f;
            }
        "#;
        arch = ["sm_80"];
        unsafe extern "CUDA" {
            safe fn zero_checked(x: &mut [f32], n: i32);
        }
    }
}

fn run(m: &k::Module, x: &mut CudaSlice<f32>) {
    let cfg = Launch::for_num_elems(8);
    let _ = m.zero_checked(&cfg, &mut *x, 8);
    let _ = m.zero(&cfg, x, 8);
}

fn main() {}

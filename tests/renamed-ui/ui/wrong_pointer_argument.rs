// Under a renamed runtime, a buffer that does not fit a pointer parameter is reported with
// the kernel, the parameter and its CUDA type; what to pass is named through `gpu`, and
// nothing of the runtime's insides is shown.
use gpu::{CudaSlice, Launch, cuda_module};

cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void scale(float* x, const float* y, float s, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] = y[i] * s;
            }
        "#;
        arch = ["sm_80"];
    }
}

fn run(m: &k::Module, a: &CudaSlice<f64>, b: &mut CudaSlice<f32>) {
    let cfg = Launch::for_num_elems(8);
    unsafe {
        // `x` is `float*`: a read-only buffer of f64 is refused.
        let _ = m.scale(&cfg, a, &*b, 2.0, 8);
        // `y` is `const float*`: a buffer of f64 is refused.
        let _ = m.scale(&cfg, &mut *b, a, 2.0, 8);
    }
}

fn main() {}

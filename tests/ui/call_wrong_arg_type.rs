// A stub takes exactly the Rust types of the CUDA parameters.
use kernel_runtime::{cuda_module, CudaSlice, LaunchConfig};

cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void scale(float* x, float s, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] *= s;
            }
        "#;
        arch = ["sm_80"];
    }
}

fn run(m: &k::Module, x: &mut CudaSlice<f32>, y: &CudaSlice<f64>) {
    let cfg = LaunchConfig::for_num_elems(8);
    unsafe {
        // `s` is `float`: an f64 is refused.
        let _ = m.scale(&cfg, x, 2.0f64, 8);
        // `x` is `float*`: a buffer of f64 is refused.
        let _ = m.scale(&cfg, y, 2.0, 8);
    }
}

fn main() {}

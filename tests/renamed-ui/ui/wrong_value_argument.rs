// Under a renamed runtime, a value argument of another type is refused with an error that
// names the kernel, the CUDA parameter and its type, and nothing of the runtime's insides.
use gpu::{CudaSlice, Launch, cuda_module};

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

fn run(m: &k::Module, x: &mut CudaSlice<f32>, len: usize) {
    let cfg = Launch::for_num_elems(8);
    unsafe {
        let _ = m.scale(&cfg, x, 2.0, len);
    }
}

fn main() {}

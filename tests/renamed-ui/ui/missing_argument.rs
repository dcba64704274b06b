// Under a renamed runtime, a call that leaves out an argument is refused; the error points
// at the call and its help names the missing CUDA parameter (`/* n */`).
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

fn run(m: &k::Module, x: &mut CudaSlice<f32>) {
    let cfg = Launch::for_num_elems(8);
    unsafe {
        let _ = m.scale(&cfg, x, 2.0);
    }
}

fn main() {}

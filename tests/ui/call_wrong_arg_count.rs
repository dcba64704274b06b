// A stub takes the launch configuration plus one argument per CUDA parameter; the help for a
// missing one names the CUDA parameter (`/* n */`).
use cuda_kernel_runtime::{cuda_module, CudaSlice, Launch};

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
    let _ = unsafe { m.scale(&cfg, x, 2.0) };
}

fn main() {}

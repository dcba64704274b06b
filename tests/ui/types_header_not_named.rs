// A source that includes the header of a Rust file's shared types while the module names no
// such file (`types = ...`): the error says how to name it, not only nvcc's "No such file".
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            #include "particles/mod.rs.cuh"
            extern "C" __global__ void weigh(Particle* ps, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) ps[i].mass *= 2.0f;
            }
        "#;
        arch = ["sm_80"];
    }
}

fn main() {}

// A `cudaTextureObject_t` parameter takes a `TextureObject`, never a plain integer handle.
use cuda_kernel_runtime::{cuda_module, CudaSlice, Launch};

cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void sample(cudaTextureObject_t tex, float* out, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) out[i] = tex1Dfetch<float>(tex, i);
            }
        "#;
        arch = ["sm_80"];
    }
}

fn run(m: &k::Module, out: &mut CudaSlice<f32>) {
    let cfg = Launch::for_num_elems(8);
    unsafe {
        let _ = m.sample(&cfg, 42u64, out, 8);
    }
}

fn main() {}

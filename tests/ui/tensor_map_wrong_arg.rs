// A `CUtensorMap` parameter takes a `TensorMap` (a checked TMA descriptor of a buffer):
// passing the buffer itself, or the raw 128 bytes, is a type error.
use cuda_kernel_runtime::{CudaSlice, Launch};

cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            #include <cuda.h>
            extern "C" __global__ void load(const __grid_constant__ CUtensorMap in, float* out) {
                out[0] = in.opaque[0] != 0;
            }
        "#;
        arch = ["sm_90"];
    }
}

fn run(m: &k::Module, src: &CudaSlice<f32>, out: &mut CudaSlice<f32>) {
    let cfg = Launch::for_num_elems(1);
    // SAFETY: the kernel writes out[0].
    let _ = unsafe { m.load(&cfg, src, &mut *out) };
}

fn main() {}

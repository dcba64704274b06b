// A struct the front end cannot lay out (a bit-fields) is measured by nvcc and becomes an
// opaque Rust type of its size and alignment: the kernel taking it keeps a typed stub, and
// passing anything else in its place is a type error naming it.
use cuda_kernel_runtime::Launch;

cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            struct Flags { unsigned mode : 3; unsigned on : 1; };
            extern "C" __global__ void apply(float* x, Flags f, int n) {
                if (f.on && threadIdx.x < n) x[threadIdx.x] = f.mode;
            }
        "#;
        arch = ["sm_80"];
    }
}

fn run(m: &k::Module, x: &mut cuda_kernel_runtime::CudaSlice<f32>) {
    let cfg = Launch::for_num_elems(1);
    // SAFETY: `apply` writes x[0]; x is not empty.
    let _ = unsafe { m.apply(&cfg, &mut *x, k::Flags::from_bytes([9, 0, 0, 0]), 1) };
    let _ = unsafe { m.apply(&cfg, x, 9u32, 1) };
}

fn main() {}

// A struct the front end cannot lay out (a bit-field) is skipped; a kernel that takes it by
// value stays in the module without a typed stub (the module's docs and the build's
// warning say why): it is reached by name, and calling it as a method is an error.
use kernel_runtime::Launch;

kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            struct Flags { unsigned mode : 3; unsigned on : 1; };
            extern "C" __global__ void fine(float* x) { x[0] = 1.0f; }
            extern "C" __global__ void apply(float* x, Flags f, int n) {
                if (f.on && threadIdx.x < n) x[threadIdx.x] = f.mode;
            }
        "#;
        arch = ["sm_80"];
    }
}

fn run(m: &k::Module, x: &mut kernel_runtime::CudaSlice<f32>) {
    let cfg = Launch::for_num_elems(1);
    // SAFETY: `fine` writes x[0]; x is not empty.
    let _ = unsafe { m.fine(&cfg, &mut *x) };
    let _ = m.by_name("apply");
    let _ = unsafe { m.apply(&cfg, x, 0u32, 1) };
}

fn main() {}

// A kernel taking a closure has no type Rust can name: it stays in the module without a
// typed stub (the module's docs and the build's warning say why) and is reached by name;
// calling it as a method is an error.
use cuda_kernel_runtime::Launch;

cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void fine(float* x) { x[0] = 1.0f; }
            template <typename F> __global__ void each(F f, int n) {
                if (threadIdx.x < n) f(threadIdx.x);
            }
            void twice(float* p, int n) {
                each<<<1, 32>>>([=] __device__ (int i) { p[i] *= 2.0f; }, n);
            }
        "#;
        arch = ["sm_80"];
        flags = ["--extended-lambda"];
    }
}

fn run(m: &k::Module, x: &mut cuda_kernel_runtime::CudaSlice<f32>) {
    let cfg = Launch::for_num_elems(1);
    // SAFETY: `fine` writes x[0]; x is not empty.
    let _ = unsafe { m.fine(&cfg, &mut *x) };
    let _ = m.by_name("each<twice(float*, int)::{lambda(int)#1}>");
    let _ = unsafe { m.each(&cfg, x, 1) };
}

fn main() {}

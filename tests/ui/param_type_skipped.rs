// A struct the front end cannot lay out (a bit-field) is skipped; a kernel that takes it by
// value is an error naming the kernel, the parameter and why the struct was skipped.
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

fn main() {}

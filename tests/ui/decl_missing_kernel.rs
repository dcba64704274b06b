// A declared kernel that the CUDA source does not define, and a struct mismatch.
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            struct P { float x; int n; };
            extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * x[i] + y[i];
            }
            extern "C" __global__ void take(P p, float* out) { out[0] = p.x * p.n; }
        "#;
        arch = ["sm_80"];
        fn sacpy(a: f32, x: &[f32], y: &mut [f32], n: i32);
        fn take(p: Params, out: &mut [f32]);
    }
}

struct Params;

fn main() {}

// What a `tune` item asks of the built module: one signature for every variant, integer
// parameters in the rules, an entry point whose name is free, and at least one variant that
// compiles.
cuda_kernel_runtime::cuda_module! {
    mod signatures_differ {
        source = r#"template <typename T> __global__ void k(T* x, int n) { x[0] = 1; }"#;
        arch = ["sm_80"];
        tune k {
            T = ["float", "double"];
            block = "128";
            grid = "n.div_ceil(128)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod not_an_integer {
        source = r#"template <int B> __global__ void k(float* x, float scale) { x[0] = B * scale; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128, 256];
            block = "B";
            grid = "scale.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod method_taken {
        source = r#"
            template <int B> __global__ void k(float* x, int n) { x[0] = B; }
            extern "C" __global__ void k_tuned(float* x) { x[0] = 0; }
        "#;
        arch = ["sm_80"];
        tune k {
            B = [128, 256];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod nothing_compiles {
        source = r#"
            template <int B> __global__ void k(float* x, int n) {
                __shared__ float s[B];
                s[threadIdx.x] = x[threadIdx.x];
                __syncthreads();
                x[threadIdx.x] = s[(threadIdx.x + 1) % B];
            }
        "#;
        arch = ["sm_80"];
        tune k {
            B = [16384, 32768];
            block = "128";
            grid = "n.div_ceil(128)";
        }
    }
}

fn main() {}

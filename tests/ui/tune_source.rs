// What a `tune` item asks of the source, checked once the source is read (before nvcc runs):
// the kernel, its template parameters, and the names the rules read.
cuda_kernel_runtime::cuda_module! {
    mod no_such_kernel {
        source = r#"template <int B> __global__ void block_sum(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune blocksum {
            B = [128, 256];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod missing_axis {
        source = r#"template <int B, int I> __global__ void k(float* x, int n) { x[0] = B * I; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128, 256];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod unused_axis {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128, 256];
            SPLIT = [1, 2];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod unknown_name {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128, 256];
            block = "B";
            grid = "m.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod launch_value {
        source = r#"extern "C" __global__ void k(float* x, int n) { x[0] = 1; }"#;
        arch = ["sm_80"];
        tune k {
            THREADS = ["float"];
            block = "THREADS";
            grid = "n.div_ceil(THREADS)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod at_run_time {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        compile = "runtime";
        tune k {
            B = [128, 256];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

fn main() {}

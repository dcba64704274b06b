// The launch rules of a `tune` item: a rule missing, one that is not an expression of the
// forms a rule takes, a tuple where one value is expected, and one too deep to evaluate.
cuda_kernel_runtime::cuda_module! {
    mod no_grid {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128, 256];
            block = "B";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod a_cast {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128, 256];
            block = "B";
            grid = "(n as u32).div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod shared_tuple {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128, 256];
            block = "B";
            grid = "n.div_ceil(B)";
            shared = "(B, 4)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod too_deep {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128, 256];
            block = "B";
            grid = "1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+n))))))))))))))))";
        }
    }
}

fn main() {}

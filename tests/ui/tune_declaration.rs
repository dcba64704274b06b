// What a `tune` item says by itself, refused before the source is read: each module shows one
// problem at the part of the item it concerns.
cuda_kernel_runtime::cuda_module! {
    mod no_variants {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod both_forms {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128, 256];
            variants = ["B=512"];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod no_values {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            B = [];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod axis_twice {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128];
            B = [256];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod value_twice {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128, 256, 128];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod value_form {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128, 2.5];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod bad_value {
        source = r#"template <typename T> __global__ void k(T* x, int n) { x[0] = 1; }"#;
        arch = ["sm_80"];
        tune k {
            T = ["float", "x; y"];
            block = "128";
            grid = "n.div_ceil(128)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod bad_listed {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            variants = ["B=128", "B 256"];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod listed_axes_differ {
        source = r#"template <int B, int I> __global__ void k(float* x, int n) { x[0] = B * I; }"#;
        arch = ["sm_80"];
        tune k {
            variants = ["B=128 I=1", "B=256"];
            block = "B";
            grid = "n.div_ceil(B * I)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod variant_twice {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            variants = ["B=128", "B=128"];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod too_many {
        source = r#"template <int A, int B, int C> __global__ void k(float* x, int n) { x[0] = A + B + C; }"#;
        arch = ["sm_80"];
        tune k {
            A = [1, 2, 3, 4, 5, 6, 7];
            B = [1, 2, 3, 4, 5, 6, 7];
            C = [1, 2, 3, 4, 5, 6, 7];
            block = "128";
            grid = "n.div_ceil(128)";
        }
    }
}

cuda_kernel_runtime::cuda_module! {
    mod kernel_twice {
        source = r#"template <int B> __global__ void k(float* x, int n) { x[0] = B; }"#;
        arch = ["sm_80"];
        tune k {
            B = [128];
            block = "B";
            grid = "n.div_ceil(B)";
        }
        tune k {
            B = [256];
            block = "B";
            grid = "n.div_ceil(B)";
        }
    }
}

fn main() {}

// An architecture name nvcc does not know is reported at its literal.
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void noop() {}
        "#;
        arch = ["sm_80", "sm_8O"];
    }
}

fn main() {}

// `line_info` takes `true` or `false`.
cuda_kernel_runtime::cuda_module! {
    mod k {
        line_info = "off";
        source = r#"
            extern "C" __global__ void fill(float* x) { x[0] = 1.0f; }
        "#;
    }
}

fn main() {}

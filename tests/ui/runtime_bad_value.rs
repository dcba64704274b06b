// `compile` takes "build" or "runtime"; anything else is reported at its literal.
cuda_kernel_runtime::cuda_module! {
    mod k {
        compile = "nvrtc";
        source = r#"
            extern "C" __global__ void noop() {}
        "#;
    }
}

fn main() {}

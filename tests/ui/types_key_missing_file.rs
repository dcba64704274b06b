// A Rust file of shared types that does not exist, listed in `types`: the error is at the
// literal.
cuda_kernel_runtime::cuda_module! {
    mod k {
        types = "src/no_such_types.rs";
        source = r#"extern "C" __global__ void k(float* x) {}"#;
    }
}

fn main() {}

// A field of a types file that cannot cross to CUDA: the error names the types file at the
// field's own line and column, not the line of the macro in this file.
cuda_kernel_runtime::cuda_module! {
    mod k {
        types = "../../../../tests/ui/types/bad_field.rs";
        source = r#"extern "C" __global__ void k(float* x) {}"#;
    }
}

fn main() {}

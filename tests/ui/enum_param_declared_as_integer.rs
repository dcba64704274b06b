// A parameter of a C enumeration is declared with its Rust enum, not the integer it is
// stored as.
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            enum class Op : int { Add = 1, Mul = 2 };
            extern "C" __global__ void apply(float* x, Op op, int n) {}
        "#;
        fn apply(x: &mut [f32], op: i32, n: i32);
    }
}

fn main() {}

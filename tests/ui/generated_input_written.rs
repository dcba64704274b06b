// An elementwise statement that writes an input: an error at the statement's literal,
// before any compiler runs.
cuda_kernel_runtime::elementwise! {
    mod ops {
        pub fn copy(x: &[f32], y: &mut [f32]) = "x[i] = y[i]";
    }
}

fn main() {}

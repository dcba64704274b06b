// nvcc rejects the expression: the error is at the literal of the part nvcc rejects, names
// the function and the part, and the call site adds no error of its own.
cuda_kernel_runtime::reduction! {
    mod stats {
        pub fn total(x: &[f32]) -> f32 { map = "x[i] * undefined_scale"; reduce = "a + b"; identity = "0"; }
    }
}

fn main() {
    let gpu = cuda_kernel_runtime::Gpu::new(0).unwrap();
    let k = stats::load(&gpu).unwrap();
    let x = gpu.upload(&[1.0f32]).unwrap();
    let _: f32 = k.total(&x).unwrap();
}

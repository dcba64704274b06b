// nvcc rejects the expression: the error is at the literal of the part nvcc rejects, names
// the function and the part, and the call site adds no error of its own.
cuda_kernel_runtime::reduction! {
    mod stats {
        pub fn total(x: &[f32]) -> f32 { map = "x[i] * undefined_scale"; reduce = "a + b"; identity = "0"; }
    }
}

// A statement nvcc rejects that the generator also writes as a vector loop: reported once,
// as written.
cuda_kernel_runtime::elementwise! {
    mod ops {
        pub fn wrap(x: &mut [f32]) = "x[i] = x[i] % 2.5f";
    }
}

fn main() {
    let gpu = cuda_kernel_runtime::Gpu::new(0).unwrap();
    let k = stats::load(&gpu).unwrap();
    let x = gpu.upload(&[1.0f32]).unwrap();
    let _: f32 = k.total(&x).unwrap();
    let mut y = gpu.upload(&[1.0f32]).unwrap();
    ops::load(&gpu).unwrap().wrap(&mut y).unwrap();
}

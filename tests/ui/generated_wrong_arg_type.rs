// A generated launcher takes exactly its types: f64 data for an f32 slice, a type the
// function was not instantiated for, and a scalar where a slice goes are compile errors.
use cuda_kernel_runtime::{CudaSlice, elementwise};

elementwise! {
    mod ops {
        pub fn scale(a: f32, x: &mut [f32]) = "x[i] *= a";
        pub fn axpy<T>(a: T, x: &[T], y: &mut [T]) for T in [f32, f64] = "y[i] = a * x[i] + y[i]";
    }
}

fn use_it(k: &ops::Module, xd: &mut CudaSlice<f64>, xi: &CudaSlice<i32>, yi: &mut CudaSlice<i32>) {
    let _ = k.scale(2.0, xd);
    let _ = k.axpy(1i32, xi, yi);
    let _ = k.scale(2.0, 3.0f32);
}

fn main() {}

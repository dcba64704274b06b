// Each macro's parts: a missing `map`, an unknown key, a reduction without a result, a scan
// of two types, an element type the generators do not take, a generic with no use.
cuda_kernel_runtime::reduction! {
    mod r {
        pub fn a(x: &[f32]) -> f32 { reduce = "a + b"; identity = "0"; }
        pub fn b(x: &[f32]) -> f32 { map = "x[i]"; reduce = "a + b"; identity = "0"; mapp = "x"; }
        pub fn c(x: &[f32]) { map = "x[i]"; reduce = "a + b"; identity = "0"; }
    }
}

cuda_kernel_runtime::scan! {
    mod s {
        pub fn d(x: &[f32], y: &mut [f64]) { op = "a + b"; identity = "0"; }
    }
}

cuda_kernel_runtime::elementwise! {
    mod e {
        pub fn f(x: &mut [usize]) = "x[i] = 0";
    }
}

cuda_kernel_runtime::elementwise! {
    mod g {
        pub fn g<T>(x: &mut [f32]) for T in [f32] = "x[i] = 0";
    }
}

fn main() {}

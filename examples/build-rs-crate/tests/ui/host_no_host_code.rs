// Module `signal` is built without host code: nothing of it is linked for a binding.
cuda_kernel_runtime::host_functions!(signal {
    fn transform(n: i32);
});

fn main() {}

// A module this crate's build.rs does not build (a typo of `signal`): the error lists the
// ones it builds instead of failing to read a file.
cuda_kernel_runtime::include_kernels!(signl);

fn main() {}

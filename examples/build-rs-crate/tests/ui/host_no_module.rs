// No module of that name was built by build.rs.
cuda_kernel_runtime::host_functions!(hostedd {
    fn hosted_runtime_version() -> i32;
});

fn main() {}

// A declaration naming no host function of the module: the error lists those it defines.
use cuda_kernel_runtime::Error;

cuda_kernel_runtime::host_functions!(hosted {
    fn hosted_select_devices(ordinal: i32) -> Result<(), Error>;
});

fn main() {}

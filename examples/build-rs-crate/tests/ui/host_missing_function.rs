// A declaration naming no host function of the module: the error lists those it defines.
use kernel_runtime::Error;

kernel_runtime::host_functions!(hosted {
    fn hosted_select_devices(ordinal: i32) -> Result<(), Error>;
});

fn main() {}

// A declaration with a parameter too few.
use cuda_kernel_runtime::{CudaSlice, Error};

cuda_kernel_runtime::host_functions!(hosted {
    fn hosted_upload_scaled(host: &[f32], dev: &mut CudaSlice<f32>, s: f32) -> Result<(), Error>;
});

fn main() {}

// A binding that takes device memory orders it on a stream, which can fail: it returns a
// `Result`; and a plain `int` return declared as the wrong type.
use std::sync::Arc;

use cuda_kernel_runtime::{CudaSlice, CudaStream};

cuda_kernel_runtime::host_functions!(hosted {
    fn hosted_clear(x: &mut CudaSlice<f32>, n: i32, stream: &Arc<CudaStream>);
    fn hosted_runtime_version() -> u32;
});

fn main() {}

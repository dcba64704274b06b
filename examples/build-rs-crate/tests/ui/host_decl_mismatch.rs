// Every parameter of a host declaration checked against the C one: the element type, the
// const-ness, the memory (a value for a pointer), the stream, the return type.
use std::sync::Arc;

use cuda_kernel_runtime::{CudaSlice, CudaStream, Error};

cuda_kernel_runtime::host_functions!(hosted {
    fn hosted_sort_pairs(
        keys_in: &CudaSlice<i32>,
        keys_out: &CudaSlice<u32>,
        values_in: &CudaSlice<f32>,
        values_out: u64,
        n: i32,
        stream: &CudaStream,
    ) -> Result<(), Error>;
    fn hosted_sum(input: &CudaSlice<f32>, out: &mut CudaSlice<f32>, n: i32,
        stream: &Arc<CudaStream>);
});

fn main() {}

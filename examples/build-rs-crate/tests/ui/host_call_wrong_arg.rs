// A checked binding has the declared signature: a buffer of the wrong element type at the
// call is a type error at the argument.
use std::sync::Arc;

use cuda_kernel_runtime::{CudaSlice, CudaStream, Error};

cuda_kernel_runtime::host_functions!(hosted {
    fn hosted_sum(input: &CudaSlice<f32>, out: &mut CudaSlice<f32>, n: i32,
        stream: &Arc<CudaStream>) -> Result<(), Error>;
});

fn run(x: &CudaSlice<f64>, out: &mut CudaSlice<f32>, s: &Arc<CudaStream>) -> Result<(), Error> {
    // SAFETY: never runs (the test does not compile).
    unsafe { hosted_sum(x, out, 4, s) }
}

fn main() {
    let _ = run;
}

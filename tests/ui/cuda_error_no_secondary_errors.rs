// When nvcc fails, the module's stubs are still generated from its declarations (read without
// nvcc): the calls below type-check, so nvcc's error is the only one.
use cuda_kernel_runtime::{Error, Gpu, Launch};

cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void fill(float* x, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] = undefined_value;
            }
        "#;
        arch = ["sm_80"];
    }
}

fn run(gpu: &Gpu) -> Result<(), Error> {
    let mut x = gpu.zeros::<f32>(16)?;
    // SAFETY: never runs; the crate does not compile.
    unsafe { k::load(gpu)?.fill(&Launch::for_num_elems(16), &mut x, 16)? };
    Ok(())
}

fn main() {
    let _ = run;
}

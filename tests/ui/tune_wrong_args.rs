// A generated tuned entry point takes the kernel's own typed arguments after the key and the
// data's protection: a wrong argument names the parameter and the entry point, a protection
// that is none of the two is refused, and the call is unsafe like the kernel's stub.
use cuda_kernel_runtime::tune::RestoreWritten;

cuda_kernel_runtime::cuda_module! {
    mod sums {
        source = r#"
            template <int BLOCK>
            __global__ void __launch_bounds__(BLOCK) part(const float* x, float* total, int n) {
                int i = blockIdx.x * BLOCK + threadIdx.x;
                if (i < n) atomicAdd(total, x[i]);
            }
        "#;
        arch = ["sm_80"];
        tune part {
            BLOCK = [128, 256];
            block = "BLOCK";
            grid = "n.div_ceil(BLOCK)";
        }
    }
}

fn run(
    m: &sums::Module,
    x: &cuda_kernel_runtime::TrackedBuffer<f32>,
    total: &mut cuda_kernel_runtime::TrackedBuffer<f32>,
    wrong: &cuda_kernel_runtime::TrackedBuffer<f64>,
) -> Result<(), cuda_kernel_runtime::Error> {
    unsafe { m.part_tuned(4096, RestoreWritten, wrong, &mut *total, 4096)? };
    unsafe { m.part_tuned(4096, true, x, &mut *total, 4096)? };
    Ok(())
}

fn without_unsafe(
    m: &sums::Module,
    x: &cuda_kernel_runtime::TrackedBuffer<f32>,
    total: &mut cuda_kernel_runtime::TrackedBuffer<f32>,
) -> Result<(), cuda_kernel_runtime::Error> {
    m.part_tuned(4096, RestoreWritten, x, total, 4096)
}

fn main() {}

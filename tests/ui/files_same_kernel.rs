// (Paths lead from the project trybuild builds in, target/tests/trybuild/kernel-tests.)
// Two files of one module defining the same kernel name: both places are named.
cuda_kernel_runtime::cuda_module! {
    mod k {
        files = ["../../../../tests/cuda/multi/scale.cu", "../../../../tests/cuda/ui/scale_again.cu"];
        arch = ["sm_80"];
    }
}

fn main() {}

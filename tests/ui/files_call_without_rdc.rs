// (Paths lead from the project trybuild builds in, target/tests/trybuild/kernel-tests.)
// A kernel calling a device function of another file, without `rdc`: the error is at the
// file that makes the call and says to add `rdc = true;`.
cuda_kernel_runtime::cuda_module! {
    mod k {
        files = ["../../../../tests/cuda/multi/poly.cu", "../../../../tests/cuda/multi/polydef.cu"];
        arch = ["sm_80"];
    }
}

fn main() {}

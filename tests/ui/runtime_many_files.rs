// A module compiled at run time is one program: several files are refused, naming the count.
cuda_kernel_runtime::cuda_module! {
    mod k {
        compile = "runtime";
        files = ["../../../../tests/cuda/multi/scale.cu", "../../../../tests/cuda/multi/offset.cu"];
    }
}

fn main() {}

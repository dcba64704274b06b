// A CUDA file that does not exist is reported at the path.
cuda_kernel_runtime::cuda_module! {
    mod k {
        file = "kernels/does_not_exist.cu";
    }
}

fn main() {}

// `rdc` and `lto` are one choice: giving both is an error at the second.
cuda_kernel_runtime::cuda_module! {
    mod k {
        files = ["../../../../tests/cuda/multi/poly.cu", "../../../../tests/cuda/multi/polydef.cu"];
        rdc = true;
        lto = true;
    }
}

fn main() {}

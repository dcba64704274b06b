// A kernel launching a kernel from device code (dynamic parallelism) needs relocatable device
// code linked with the device runtime: without `rdc = true;` the error says so, at the
// launch's file:line, with nvcc's own message after it.
cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void child(float* x) { x[threadIdx.x] = 1.0f; }
            extern "C" __global__ void parent(float* x) {
                child<<<1, 32>>>(x);
            }
        "#;
        arch = ["sm_90"];
    }
}

fn main() {}

// A stub takes exactly the Rust types of the CUDA parameters; an argument that does not fit
// (a value or a pointer) is reported with the kernel, the parameter and its CUDA type as
// written.
use cuda_kernel_runtime::{cuda_module, CudaSlice, Launch};

cuda_module! {
    mod k {
        source = r#"
            extern "C" __global__ void scale(float* x, float s, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] *= s;
            }
            namespace ops {
            template <typename T>
            __global__ void axpy(T a, const T* __restrict__ x, T* y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * x[i] + y[i];
            }
            template __global__ void axpy<float>(float, const float*, float*, int);
            template __global__ void axpy<double>(double, const double*, double*, int);
            }
        "#;
        arch = ["sm_80"];
    }
}

fn run(m: &k::Module, x: &mut CudaSlice<f32>, y: &CudaSlice<f64>, z: &mut CudaSlice<f32>) {
    let cfg = Launch::for_num_elems(8);
    unsafe {
        // `s` is `float`: an f64 is refused.
        let _ = m.scale(&cfg, x, 2.0f64, 8);
        // `x` is `float*`: a buffer of f64 is refused.
        let _ = m.scale(&cfg, y, 2.0, 8);
        // `x` of `axpy<float>` is `const T*` with T = float: a buffer of f64 is refused.
        let _ = m.ops_axpy::<f32>(&cfg, 2.0, y, z, 8);
    }
}

fn main() {}

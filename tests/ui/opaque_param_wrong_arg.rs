// A type the front end cannot lay out (a library operator's `typename Op::Params`) is
// measured by nvcc and becomes an opaque Rust type of its size and alignment: the kernel
// taking it keeps a typed stub, and passing anything else in its place is a type error
// naming it.
use cuda_kernel_runtime::Launch;

cuda_kernel_runtime::cuda_module! {
    mod k {
        source = r#"
            namespace lib { template <class T> struct Op { struct Params { T scale; unsigned on; }; }; }
            template <class O>
            __global__ void apply(float* x, typename O::Params p, int n) {
                if (p.on && threadIdx.x < n) x[threadIdx.x] = p.scale;
            }
            template __global__ void apply<lib::Op<float>>(float*, lib::Op<float>::Params, int);
        "#;
        arch = ["sm_80"];
    }
}

fn run(m: &k::Module, x: &mut cuda_kernel_runtime::CudaSlice<f32>) {
    let cfg = Launch::for_num_elems(1);
    let p = k::lib_Op_float_Params::from_bytes([0, 0, 0, 65, 1, 0, 0, 0]);
    // SAFETY: `apply` writes x[0]; x is not empty.
    let _ = unsafe { m.apply::<k::lib_Op_float>(&cfg, &mut *x, p, 1) };
    let _ = unsafe { m.apply::<k::lib_Op_float>(&cfg, x, 9u64, 1) };
}

fn main() {}

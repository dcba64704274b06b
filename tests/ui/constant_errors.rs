// Exported constants: a type that is not a Rust integer type, a name the CUDA code does not
// define, and a value that does not fit the type asked for.
cuda_kernel_runtime::cuda_module! {
    mod bad_type {
        source = r#"
            #define TILE 16
            extern "C" __global__ void k(float* x) { x[0] = TILE; }
        "#;
        arch = ["sm_80"];
        constants = ["TILE: f32"];
    }
}

cuda_kernel_runtime::cuda_module! {
    mod missing {
        source = r#"
            #define TILE 16
            extern "C" __global__ void k(float* x) { x[0] = TILE; }
        "#;
        arch = ["sm_80"];
        constants = ["TILES"];
    }
}

cuda_kernel_runtime::cuda_module! {
    mod too_big {
        source = r#"
            #define WIDE 300
            extern "C" __global__ void k(float* x) { x[0] = WIDE; }
        "#;
        arch = ["sm_80"];
        constants = ["WIDE: u8"];
    }
}

fn main() {}

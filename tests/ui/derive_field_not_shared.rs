// A field whose type is not shared with CUDA (no derive), and an enum without a 0 variant
// inside a struct, whose all-zero bytes would then be no value.
use cuda_kernel_runtime::CudaType;

#[derive(Clone, Copy)]
#[repr(C)]
struct Plain {
    x: f32,
}

#[derive(Clone, Copy, CudaType)]
#[repr(i32)]
enum Level {
    Low = 1,
    High = 2,
}

#[derive(Clone, Copy, CudaType)]
#[repr(C)]
struct Holder {
    plain: Plain,
    level: Level,
}

fn main() {}

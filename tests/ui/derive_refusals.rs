// What cannot cross to CUDA, refused at the field or the type it concerns.
use cuda_kernel_runtime::{CudaType, RawDevicePtr};

#[derive(Clone, Copy, CudaType)]
#[repr(C)]
struct Fields {
    alive: bool,
    count: usize,
    letter: char,
    pair: (f32, f32),
    host: &'static f32,
    raw: *const f32,
    #[cuda(c_type = "float*")]
    not_a_pointer: f32,
    data: RawDevicePtr,
}

#[derive(Clone, Copy, CudaType)]
struct NotReprC {
    x: f32,
}

#[derive(Clone, Copy, CudaType)]
#[repr(C, packed)]
struct Packed {
    x: f32,
    y: f64,
}

#[derive(Clone, Copy, CudaType)]
enum NoRepr {
    A,
    B,
}

#[derive(Clone, Copy, CudaType)]
#[repr(i32)]
enum WithData {
    A,
    B(i32),
}

fn main() {}

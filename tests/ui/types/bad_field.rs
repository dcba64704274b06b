//! Shared types with a field no CUDA type matches (read by `types_file_error_location`).

/// A body.
#[derive(Clone, Copy, cuda_kernel_runtime::CudaType)]
#[repr(C)]
pub struct Body {
    pub mass: f32,
    pub name: String,
}

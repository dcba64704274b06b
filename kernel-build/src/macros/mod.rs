//! The macros' backend: every macro of the framework expands here, from the tokens the
//! proc-macro crate hands over to the tokens it returns. `cuda_module!` builds its inline
//! source through the pipeline; `include_kernels!` and `host_functions!` read what a
//! build script wrote in `OUT_DIR`; `elementwise!`, `reduction!` and `scan!` write their
//! CUDA with `cuda-kernel-generate` and build it as `cuda_module!` does.

pub(crate) mod generated;
mod host_functions;
mod include_kernels;

pub use generated::{GeneratorKind, expand as expand_generated};
pub use host_functions::expand_host_functions;
pub use include_kernels::expand_include_kernels;

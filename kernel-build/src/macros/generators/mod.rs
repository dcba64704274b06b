//! Kernels written from one line of CUDA: the input of `elementwise!`, `reduction!` and
//! `scan!` ([`input`]), and their expansion through the same pipeline as `cuda_module!`
//! ([`expand()`]); the CUDA text comes from `cuda-kernel-generate`, the launchers from
//! `codegen`.

pub(crate) mod expand;
pub(crate) mod input;
mod launchers;

pub use expand::expand;
pub use input::GeneratorKind;

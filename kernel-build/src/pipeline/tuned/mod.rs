//! Kernels tuned over declared variants (`tune NAME { ... }` in `cuda_module!`,
//! `Build::tune`) through the build: the declaration checked where it is given
//! (`request`), its rules read (`rule`), the kernel found in the raw source and every
//! variant's instantiation planned before nvcc runs (`resolve`), the wrapper's section that
//! instantiates them and the variants nvcc refuses for a target (`section`), and the model's
//! tuned kernels made from the verified module (`assemble`).

mod assemble;
mod request;
mod resolve;
mod rule;
mod section;

pub(crate) use assemble::assemble;
pub use request::{TuneAt, TuneProblem};
pub(crate) use resolve::{Resolved, resolve};
pub(crate) use section::Section;

//! Kernels written by `cuda-kernel-generate` from one line of CUDA C: what the launchers that
//! `elementwise!`, `reduction!` and `scan!` generate call ([`launch`], reached through
//! `__private`), and the same generators compiled by NVRTC at run time ([`runtime`]).

pub(crate) mod launch;
pub(crate) mod runtime;

//! Compiling CUDA source while the program runs: [`Program`] (NVRTC through cudarc's
//! bindings, opened at run time by [`Nvrtc`]), with a disk cache keyed by everything that
//! changes the output. Every raw NVRTC call is in `api`, NVRTC's one checked layer; `library`
//! finds and loads NVRTC (through `cuda_kernel_objects::native`), `compile` runs one
//! compilation over `api`.
//!
//! NVRTC is optional: without it, compiling returns [`crate::Error::NoNvrtc`], which says how
//! to install it; nothing else in the runtime needs it.

mod api;
mod cache;
mod compile;
mod key;
mod library;
mod program;
mod target;

pub use library::Nvrtc;
pub use program::Program;

//! Compiling CUDA source while the program runs: [`Program`] (NVRTC through cudarc's
//! bindings, opened at run time by [`Nvrtc`]), with a disk cache keyed by everything that
//! changes the output.
//!
//! NVRTC is optional: without it, compiling returns [`crate::Error::NoNvrtc`], which says how
//! to install it; nothing else in the runtime needs it.

mod cache;
mod compile;
mod key;
mod library;
mod program;
mod target;

pub use library::Nvrtc;
pub use program::Program;

//! Build-time half of the kernel framework.
//!
//! `kernel-build` finds nvcc, reads the `__global__` declarations of CUDA C sources,
//! compiles them into a fatbin (SASS for a list of architectures plus PTX for the
//! newest), verifies every compiled image against the declarations, and generates
//! typed Rust launch stubs. It is used from `build.rs` (through `Build`) and by the
//! `cuda_module!` macro.
//!
//! # Example
//!
//! ```no_run
//! // build.rs
//! fn main() {
//!     kernel_build::Build::new().file("kernels/vecmath.cu").compile("vecmath");
//! }
//! ```
//!
//! # Phases
//!
//! `toolkit` (find nvcc) → `front` (parse and type the declarations) → `compile`
//! (nvcc, through `cache`) → `fatbin` (read the images) → `front::verify` (every
//! kernel in every image with the predicted layout) → `codegen` (Rust tokens; cannot
//! fail).
//!
//! # External configuration via environment variables
//!
//! See [`env`](mod@env) for the full list; every variable is read through one function that
//! also tells Cargo to rerun when it changes.

// The examples are build scripts, whose `fn main` is part of what they show.
#![allow(clippy::needless_doctest_main)]

mod builder;
pub mod cache;
pub mod check;
pub mod codegen;
mod compile;
pub mod diagnostics;
pub mod env;
pub mod error;
/// The object-code reader (fatbin containers, cubins, PTX), shared with the runtime.
pub use kernel_objects as fatbin;
pub mod front;
mod jobs;
pub mod link;
pub mod model;
pub mod pipeline;
pub use builder::{Build, Metadata, Output};
pub mod toolkit;

pub use error::Error;

//! Build-time half of the kernel framework.
//!
//! `cuda-kernel-build` finds nvcc, reads the `__global__` declarations of CUDA C sources,
//! compiles them into a fatbin (SASS for a list of architectures plus PTX for the
//! newest), verifies every compiled image against the declarations, and generates
//! typed Rust launch stubs. It is used from `build.rs` (through [`Build`]) and by the
//! `cuda_module!` macro, which fill the same options and share every phase.
//!
//! # Example
//!
//! ```no_run
//! // build.rs
//! fn main() {
//!     cuda_kernel_build::Build::new().file("kernels/vecmath.cu").compile("vecmath");
//! }
//! ```
//!
//! # What is public
//!
//! [`Build`] and what it returns ([`Output`], [`BuiltModule`], the [`Metadata`] written to
//! `<name>.kernels.json` and the [`model`] types inside it), the option enums
//! ([`LinkMode`], [`RuntimeCompile`]), [`Error`], and the environment variables listed
//! below. The compiler itself (front end, nvcc invocation, cache, linking, code
//! generation) is private; the macro and `cuda-kernel-inspect` reach it through a hidden
//! module that is not part of the API and changes with them.
//!
//! # Environment variables
//!
//! Every variable is read through one function, which in a build script also prints
//! `cargo:rerun-if-env-changed`; the `cuda_module!` macro makes rustc track the same
//! list.
//!
#![doc = include_str!("env_table.md")]
//!
//! `PATH` is searched for `nvcc` and `python3` but not tracked (as cc does), and the
//! variables Cargo sets for build scripts (`OUT_DIR`, `CARGO_MANIFEST_DIR`) are read
//! without printing anything.

// The examples are build scripts, whose `fn main` is part of what they show.
#![allow(clippy::needless_doctest_main)]

mod builder;
mod cache;
mod check;
mod codegen;
mod compile;
mod diagnostics;
mod env;
mod error;
mod front;
mod jobs;
mod link;
mod macros;
pub mod model;
mod pipeline;
mod runtime_crate;
mod toolkit;
mod verify;
mod wheels;

pub use builder::{Build, Metadata, Output};
pub use diagnostics::Diagnostics;
pub use error::{Error, LinkLibraryError};
pub use model::built::{BuiltModule, ExportedConstant, Unit};
pub use model::options::{LinkMode, RuntimeCompile, RuntimeSource};

/// Not public API: the compiler's phases, for `cuda_module!` (cuda-kernel-macros),
/// `cuda-kernel-inspect` and this crate's own tests. Nothing here is stable; the crates that
/// use it pin this crate's exact version.
#[doc(hidden)]
pub mod __private {
    /// The content-addressed build cache.
    pub mod cache {
        pub use crate::cache::*;
    }
    /// Rust declarations of the macro checked against the CUDA ones.
    pub mod check {
        pub use crate::check::*;
    }
    /// The C → Rust mapping.
    pub mod rust {
        pub use crate::model::rust::*;
    }
    /// Rust code generation.
    pub mod codegen {
        pub use crate::codegen::*;
    }
    /// The catalog of messages.
    pub mod diagnostics {
        pub use crate::diagnostics::*;
    }
    /// Environment variables.
    pub mod env {
        pub use crate::env::*;
    }
    /// Verification against the compiled images.
    pub mod verify {
        pub use crate::verify::*;
    }
    /// The CUDA front end.
    pub mod front {
        pub use crate::front::*;
    }
    /// nvJitLink and nvFatbin.
    pub mod link {
        pub use crate::link::*;
    }
    /// The macros' backend.
    pub mod macros {
        pub use crate::macros::*;
    }
    /// The generated-kernel macros (`elementwise!`, `reduction!`, `scan!`).
    pub mod generated {
        pub use crate::macros::generated::*;
    }
    /// The whole build of one module.
    pub mod pipeline {
        pub use crate::pipeline::*;
    }
    /// The path generated code names the runtime by.
    pub mod runtime_crate {
        pub use crate::runtime_crate::*;
    }
    /// NVIDIA's wheels of the toolkit and its libraries.
    pub mod wheels {
        pub use crate::wheels::*;
    }
    /// Finding nvcc.
    pub mod toolkit {
        pub use crate::toolkit::*;
    }
}

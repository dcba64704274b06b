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

// The macros' backend asks the compiler where an inline source's literal lies, when it
// runs inside a macro expansion.
extern crate proc_macro;

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
mod shared_types;
mod toolkit;
mod verify;
mod wheels;

pub use builder::Metadata;
#[cfg(feature = "build")]
pub use builder::{Build, Output, Tune};
pub use diagnostics::Diagnostics;
pub use error::{Error, LinkLibraryError};
pub use model::built::{BuiltModule, ExportedConstant, Unit};
pub use model::options::{LinkMode, RuntimeCompile, RuntimeSource};

/// Not public API: what `cuda-kernel-macros` and `cuda-kernel-inspect` (and this crate's
/// integration tests and fuzzer) reach, each item named. Nothing here is stable; the crates
/// that use it pin this crate's exact version.
#[doc(hidden)]
pub mod __private {
    /// The macros' backend: each of the six macros and the derive of `cuda-kernel-macros`,
    /// from its input tokens to its expansion.
    pub mod macros {
        pub use crate::macros::{
            cuda_module, cuda_module_in, derive_cuda_type, elementwise, host_functions,
            include_kernels, reduction, scan,
        };
    }
    /// The keys `cuda_module!` takes, for the macro's documentation test.
    pub use crate::diagnostics::options::MACRO_KEYS;

    // One module's build without a build script (`cuda-kernel-inspect build`, the tests).
    #[cfg(feature = "build")]
    pub use crate::builder::script_module;
    pub use crate::model::request::{ModuleRequest, RustTypesFile, SourceInput, TuneRequest};
    pub use crate::pipeline::tuned::{TuneAt, TuneProblem};
    pub use crate::pipeline::{Context, build_module, editor_folder};

    // The front end, verification and the C and Rust spellings of a type
    // (`cuda-kernel-inspect decls`, the fuzzer, the tests).
    pub use crate::front::{FrontInput, analyze, preprocess};
    pub use crate::model::rust::passing;
    pub use crate::model::spelling::c_spelling;
    pub use crate::verify::{VerifyOptions, verify, verify_with};
    // A cubin without the PTX text embedded with its line tables (the tests, on nvcc's cubins).
    pub use crate::link::ptx_text::left_out as ptx_text_left_out;

    // The toolkit: discovery, the libraries beside nvcc, the wheels
    // (`cuda-kernel-inspect toolkit`, the tests).
    pub use crate::link::companion_libraries;
    pub use crate::toolkit::{DiscoverOptions, Toolkit, user_toolkit_dir};
    pub use crate::wheels::{LIBRARIES, WHEEL_VERSION, WHEELS};
}

//! The module model: what the front end learns about a CUDA source, what the
//! verifier checks against the compiled images, and what codegen turns into Rust.
//!
//! Everything here is plain data (serde-serialisable) so that it can be cached
//! beside the fatbin and read back on a warm build without running nvcc. Every phase
//! of the build reads and writes it; it imports none of them.

pub(crate) mod built;
mod declarations;
pub(crate) mod host;
pub(crate) mod options;
pub(crate) mod request;
pub(crate) mod rust;
pub(crate) mod spelling;
mod tuned;

pub use cuda_kernel_objects::launch_rule::RuleOp;
pub use declarations::*;
pub use tuned::{TunedKernel, TunedRule, TunedVariant};

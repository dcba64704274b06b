//! Verification, the phase between compiling (and linking) and codegen: the model the
//! front end read is held against the compiled images. Every kernel of every image is
//! declared with the parameter layout its C declaration predicts, C++ kernels get their
//! symbols, globals their sizes ([`images`]); kernels the front end could not type are
//! typed from their symbols and the sizes the compiler measured, and checked against the
//! images again ([`opaque`]).
//!
//! ```text
//! ModuleInfo (front) + fatbin (compile, link) ──verify──▶ ModuleInfo with symbols and
//!     images, every kernel checked; untyped ones promoted where the probe measured them
//! ```

pub(crate) mod images;
pub(crate) mod kept_ptx;
pub(crate) mod layouts;
pub(crate) mod opaque;

pub use images::{VerifyOptions, verify, verify_with};

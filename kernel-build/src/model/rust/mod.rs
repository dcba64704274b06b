//! The Rust face of a module, decided once from the model: how CUDA names become Rust
//! identifiers ([`names`]), how each C type is passed and stored ([`types`]), and which
//! launch method each kernel gets ([`plan()`]). Codegen spells these in tokens; the
//! declaration check, the build's option checks, the reports and `cuda-kernel-inspect
//! decls` read them.

pub mod names;
pub mod plan;
pub mod types;

pub use names::{kernel_rust_name, param_ident, rust_ident};
pub use plan::{Member, Planned, method_names, plan};
pub use types::{
    Passing, RuntimeObject, RustType, enum_param, passes_bare, passing, passing_param, scalar_name,
    scalar_named, stored, vector_named,
};

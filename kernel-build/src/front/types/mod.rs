//! The C type model on 64-bit Linux: names the CUDA headers provide, typedefs and
//! structs of the user's files, sizes, alignments and struct layouts.
//!
//! CUDA vector types follow `vector_types.h`: one-, two- and four-lane types are
//! aligned to their size up to 16 bytes (`float2`: 8, `int4`: 16, `double2`: 16,
//! `double4`: 16), three-lane types to their lane (`float3`: 4). `__half2` and
//! `__nv_bfloat162` are two-lane vectors of 2-byte lanes.

mod headers;
mod layout;
pub(crate) mod named;
mod resolve;
mod templates;
#[cfg(test)]
mod tests;

pub use crate::model::spelling::c_spelling;
pub use headers::header_type;
pub use layout::size_align;
pub use named::Named;
pub use resolve::{Resolved, TypeEnv};
pub(crate) use templates::demangled_type;
pub use templates::replace_words;

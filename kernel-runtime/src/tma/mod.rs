//! TMA tensor-map descriptors (compute capability 9.0 and later): [`TensorMap`] describes a
//! tile view of a device buffer for the tensor memory accelerator, and a kernel takes it as
//! `const __grid_constant__ CUtensorMap`. Every rule `cuTensorMapEncodeTiled` imposes is
//! checked first ([`rules`]) and named in the error; the descriptor borrows its buffer, so
//! the memory it points at outlives it.

mod map;
mod rules;

pub use map::{Interleave, Swizzle, TensorMap, TensorMapHandle, TiledOptions, TmaElement};
pub use rules::TensorMapError;

//! TMA tensor-map descriptors (compute capability 9.0 and later): [`TensorMap`] describes a
//! tile view of a device buffer for the tensor memory accelerator, and a kernel takes it as
//! `const __grid_constant__ CUtensorMap`; an im2col map feeds convolutions written as matrix
//! products. Every rule `cuTensorMapEncodeTiled` and `cuTensorMapEncodeIm2col` impose is
//! checked first ([`rules`]) and named in the error; the descriptor borrows its buffer, so
//! the memory it points at outlives it, and a launch passing it orders the buffer's uses
//! across streams ([`source`]).

mod map;
mod rules;
mod source;

pub use crate::error::{Swizzle, TensorMapError};
pub use map::{Im2colShape, TensorMap, TensorMapHandle, TensorMapOptions, TmaElement};
pub use rules::Interleave;

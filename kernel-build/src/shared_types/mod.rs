//! Types defined once, in Rust, and shared with CUDA: the `#[derive(CudaType)]` items of a
//! Rust file read with syn (`read`), each field's Rust type told as the model's C type
//! through the one C → Rust mapping read backwards (`fields`), and the CUDA header written
//! from them (`header`), which the module's sources include as `"<file>.cuh"`
//! (`src/particles.rs` → `#include "src/particles.rs.cuh"`).
//!
//! The derive and the header read an item the same way, so a type the derive accepts is
//! one the header can declare, and every refusal names the field and points at it.

mod fields;
mod header;
mod read;

pub use header::{HeaderFile, headers};
pub use read::{read_field, read_file, read_item};

use crate::model::{CType, Scalar};

/// One Rust type shared with CUDA: a `#[repr(C)]` struct with named fields or a fieldless
/// enum with an integer `repr`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedType {
    /// Its name, the same in Rust and in CUDA.
    pub name: String,
    /// The module it is declared in, relative to the file (`inner` for `mod inner { .. }`).
    pub module: Vec<String>,
    /// Its doc comment, line by line.
    pub doc: Vec<String>,
    /// A struct or an enum.
    pub kind: SharedKind,
}

/// What a shared type is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SharedKind {
    /// A `#[repr(C)]` struct.
    Struct {
        /// `#[repr(C, align(N))]`.
        align: Option<u64>,
        /// Its fields, in order.
        fields: Vec<SharedField>,
    },
    /// A fieldless enum with an integer `repr`.
    Enum {
        /// The integer it is stored as.
        repr: Scalar,
        /// Its variants and their values.
        variants: Vec<(String, i128)>,
    },
}

/// A field of a shared struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedField {
    /// Its name.
    pub name: String,
    /// Its type as C sees it (another shared type is `CType::Struct` by name).
    pub ty: CType,
    /// The C spelling given with `#[cuda(c_type = "...")]` (a `RawDevicePtr` field's
    /// pointer type), instead of the one `ty` has.
    pub c_type: Option<String>,
    /// Its doc comment, line by line.
    pub doc: Vec<String>,
}

impl SharedType {
    /// The names of the shared types its fields hold (by value or in arrays).
    pub fn uses(&self) -> Vec<&str> {
        match &self.kind {
            SharedKind::Struct { fields, .. } => {
                fields.iter().filter_map(|f| f.ty.struct_name()).collect()
            }
            SharedKind::Enum { .. } => Vec::new(),
        }
    }

    /// Whether some variant is 0, so that all-zero bytes are a value (always for a struct,
    /// whose fields are checked on their own).
    pub fn zero_is_a_value(&self) -> bool {
        match &self.kind {
            SharedKind::Struct { .. } => true,
            SharedKind::Enum { variants, .. } => variants.iter().any(|(_, v)| *v == 0),
        }
    }
}

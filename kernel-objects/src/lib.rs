//! Reading CUDA object code without a GPU: nvcc fatbins and the cubins and PTX inside them,
//! and the kind of any compiled code ([`CodeKind`]: cubin, fatbin, PTX, LTO-IR, host object,
//! library). Shared by the build (`cuda-kernel-build` verifies every image it compiles) and the
//! runtime (`cuda-kernel-runtime` inspects the code it is given before loading or linking it).
//!
//! A fatbin (`nvcc -fatbin`) is one or more containers of entries; each entry is a cubin
//! (SASS for one architecture) or PTX text, possibly compressed (Zstandard or LZ4). This
//! crate walks the containers ([`parse`]), decompresses payloads, and reads each image
//! ([`Entry::image`]) far enough to verify it: every kernel's symbol and parameter layout
//! `(offset, size)`, registers, launch bounds and cluster shape, and the module globals.
//! [`find_containers`] locates fatbins embedded in other files, such as a built executable.
//!
//! Every input is treated as untrusted: malformed, truncated or lying data gives a
//! [`Error`] naming the byte offset (and the entry), never a panic, and decompressed
//! sizes are bounded by the header and by [`MAX_PAYLOAD_SIZE`].
//!
//! # Example
//!
//! ```no_run
//! use cuda_kernel_objects as fatbin;
//!
//! # fn main() -> Result<(), fatbin::Error> {
//! let bytes = std::fs::read("kernels.fatbin").expect("readable");
//! for entry in fatbin::parse(&bytes)?.entries {
//!     let image = entry.image()?;
//!     for kernel in image.kernels() {
//!         let layout: Vec<_> = kernel.params.iter().map(|p| (p.offset, p.size)).collect();
//!         println!("{} {}: {layout:?}", entry.target(), kernel.symbol);
//!     }
//! }
//! # Ok(()) }
//! ```

mod bytes;
mod compress;
mod container;
pub mod ctypes;
mod cubin;
mod entry;
mod error;
mod image;
mod kind;
pub mod label;
pub mod launch_rule;
pub mod native;
mod nvinfo;
pub mod nvjitlink;
mod params;
mod ptx;
mod ptx_decl;
mod ptx_lex;
mod scan;
pub mod tuning;

pub use compress::MAX_PAYLOAD_SIZE;
pub use cubin::{Cubin, parse_cubin};
pub use entry::{ArchVariant, Compression, Entry, EntryKind, Image};
pub use error::Error;
pub use image::{GlobalImage, KernelImage, ParamSlot};
pub use kind::{CodeKind, is_relocatable_cubin};
pub use params::param_layout_agrees;
pub use ptx::{PtxModule, parse_ptx};
pub use scan::find_containers;

/// The entries of a fatbin, in file order across all its containers.
///
/// ```
/// let fatbin = cuda_kernel_objects::Fatbin { entries: vec![] };
/// assert!(fatbin.entries.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fatbin {
    /// Every entry, payloads decompressed.
    pub entries: Vec<Entry>,
}

/// How each entry of a fatbin is stored, in file order, read from the entry headers alone
/// (nothing is decompressed): what `parse` would report as each [`Entry::compression`].
///
/// ```
/// use cuda_kernel_objects::{entry_compression, Error};
/// assert!(matches!(entry_compression(b"not a fatbin"), Err(Error::BadMagic { .. })));
/// ```
pub fn entry_compression(bytes: &[u8]) -> Result<Vec<Compression>, Error> {
    let mut out = Vec::new();
    let mut start = Some(0);
    while let Some(at) = start {
        let (end, raw) = container::walk(bytes, at)?;
        for r in &raw {
            out.push(container::compression(r)?);
        }
        start = container::next_start(bytes, end)?;
    }
    Ok(out)
}

/// Parses raw `nvcc -fatbin` output: one container, or several back to back (each 8-byte
/// aligned, zero padding between them and at the end allowed).
///
/// ```
/// use cuda_kernel_objects::{parse, Error};
/// assert!(matches!(parse(b"not a fatbin at all"), Err(Error::BadMagic { offset: 0, .. })));
/// ```
pub fn parse(bytes: &[u8]) -> Result<Fatbin, Error> {
    let mut entries = Vec::new();
    let mut start = Some(0);
    while let Some(at) = start {
        let (end, raw) = container::walk(bytes, at)?;
        for r in &raw {
            entries.push(container::decode(bytes, r)?);
        }
        start = container::next_start(bytes, end)?;
    }
    Ok(Fatbin { entries })
}

//! The error type of the fatbin reader: every variant names what was wrong and where.

/// Why a fatbin, cubin or PTX image could not be read.
///
/// Offsets are byte offsets into the input given to the function that failed
/// ([`parse`](super::parse), [`parse_cubin`](super::parse_cubin)); errors found inside one
/// entry's image come wrapped in [`Error::InEntry`], which names the entry.
///
/// ```
/// use cuda_kernel_objects::{parse, Error};
/// let err = parse(&[0x50, 0xed]).unwrap_err();
/// assert!(matches!(err, Error::Truncated { offset: 0, .. }));
/// assert!(err.to_string().contains("byte offset 0"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input ends before a structure it declares.
    #[error(
        "truncated input: {what} at byte offset {offset} needs {needed} bytes, {available} remain"
    )]
    Truncated {
        /// The structure being read (`fatbin header`, `entry payload`).
        what: &'static str,
        /// Where the structure starts.
        offset: usize,
        /// Bytes it needs.
        needed: u64,
        /// Bytes left in the input from `offset`.
        available: usize,
    },
    /// No fatbin magic where a container must start.
    #[error(
        "no fatbin container at byte offset {offset}: magic {found:#010x}, expected 0xba55ed50"
    )]
    BadMagic {
        /// Where the container was expected.
        offset: usize,
        /// The little-endian u32 found there.
        found: u32,
    },
    /// The container header holds an unsupported or impossible value.
    #[error("fatbin container at byte offset {offset}: {detail}")]
    BadContainer {
        /// Start of the container.
        offset: usize,
        /// What is wrong.
        detail: String,
    },
    /// An entry header holds an unsupported or impossible value.
    #[error("fatbin entry at byte offset {offset}: {detail}")]
    BadEntry {
        /// Start of the entry header.
        offset: usize,
        /// What is wrong.
        detail: String,
    },
    /// A compressed payload does not decode to the size its header declares.
    #[error("fatbin entry at byte offset {offset}: {codec} payload: {detail}")]
    Decompress {
        /// Start of the entry header.
        offset: usize,
        /// `zstd` or `lz4`.
        codec: &'static str,
        /// What went wrong.
        detail: String,
    },
    /// Non-zero bytes after the last container that do not start another one.
    #[error("unexpected data at byte offset {offset} after the last fatbin container")]
    TrailingData {
        /// First unexpected byte.
        offset: usize,
    },
    /// A cubin (CUDA ELF) is malformed or not a cubin.
    #[error("cubin: {detail} (byte offset {offset})")]
    BadCubin {
        /// Offset in the cubin where the problem was found (0 when it concerns the whole file).
        offset: usize,
        /// What is wrong.
        detail: String,
    },
    /// A `.nv.info` record of a cubin is malformed or inconsistent.
    #[error("cubin section `{section}`: {detail} (record at byte offset {offset} of the section)")]
    BadNvInfo {
        /// The section (`.nv.info.saxpy`).
        section: String,
        /// Offset of the record inside the section.
        offset: usize,
        /// What is wrong.
        detail: String,
    },
    /// PTX text that this reader cannot make sense of.
    #[error("PTX line {line}: {detail}")]
    BadPtx {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        detail: String,
    },
    /// [`Entry::image`](super::Entry::image) on an entry that holds neither a cubin nor PTX.
    #[error(
        "fatbin entry at byte offset {offset} has kind {kind}, which is neither PTX nor a cubin"
    )]
    NotAnImage {
        /// Start of the entry header.
        offset: usize,
        /// The entry's kind field.
        kind: u16,
    },
    /// An image inside a fatbin entry could not be read.
    #[error("fatbin entry {target} at byte offset {offset}: {inner}")]
    InEntry {
        /// Start of the entry header.
        offset: usize,
        /// The entry's target (`sm_90a`, `compute_120`).
        target: String,
        /// The error found in the image (offsets relative to the image).
        inner: Box<Error>,
    },
}

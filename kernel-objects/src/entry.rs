//! One entry of a fatbin container: what it targets, how it was stored, its payload, and the
//! image decoded from it (`Image`: a cubin or a PTX module).

use super::cubin::Cubin;
use super::cubin::parse_cubin;
use super::error::Error;
use super::image::{GlobalImage, KernelImage};
use super::ptx::PtxModule;
use super::ptx::parse_ptx;

/// A decoded image: a cubin or a PTX module.
///
/// ```
/// use cuda_kernel_objects::{parse_ptx, Image};
/// let ptx = parse_ptx(".version 9.0\n.target sm_90\n.visible .entry k(.param .u32 k_param_0) { ret; }")?;
/// let image = Image::Ptx(ptx);
/// assert_eq!(image.kernels()[0].symbol, "k");
/// assert!(image.globals().is_empty());
/// # Ok::<(), cuda_kernel_objects::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Image {
    /// SASS in a CUDA ELF.
    Cubin(Cubin),
    /// PTX text.
    Ptx(PtxModule),
}

impl Image {
    /// The kernels (`__global__` functions) in the image, in file order.
    ///
    /// ```
    /// # use cuda_kernel_objects::{parse_ptx, Image};
    /// let image = Image::Ptx(parse_ptx(".version 9.0\n.target sm_90\n")?);
    /// assert!(image.kernels().is_empty());
    /// # Ok::<(), cuda_kernel_objects::Error>(())
    /// ```
    pub fn kernels(&self) -> &[KernelImage] {
        match self {
            Image::Cubin(c) => &c.kernels,
            Image::Ptx(p) => &p.kernels,
        }
    }

    /// The `__constant__` and `__device__` variables defined in the image.
    ///
    /// ```
    /// # use cuda_kernel_objects::{parse_ptx, Image};
    /// let image = Image::Ptx(parse_ptx(".version 9.0\n.target sm_90\n.const .align 4 .b8 c[64];")?);
    /// assert_eq!(image.globals()[0].size, 64);
    /// # Ok::<(), cuda_kernel_objects::Error>(())
    /// ```
    pub fn globals(&self) -> &[GlobalImage] {
        match self {
            Image::Cubin(c) => &c.globals,
            Image::Ptx(p) => &p.globals,
        }
    }
}

/// Entry flag bits (u64 at entry offset 0x28) and their names, in bit order.
pub(crate) const FLAG_NAMES: &[(u64, &str)] = &[
    (0x1, "64bit"),
    (0x2, "debug"),
    (0x4, "cuda"),
    (0x8, "opencl"),
    (0x10, "linux"),
    (0x20, "mac"),
    (0x40, "windows"),
    (0x1000, "compressed-old"),
    (FLAG_LZ4, "lz4"),
    (FLAG_ZSTD, "zstd"),
    (FLAG_ARCH_SPECIFIC, "arch-specific"),
    (FLAG_FAMILY_SPECIFIC, "family-specific"),
    (0x100_0000, "sm100-ext"),
];
/// Payload is an LZ4 block.
pub(crate) const FLAG_LZ4: u64 = 0x2000;
/// Payload is a Zstandard frame.
pub(crate) const FLAG_ZSTD: u64 = 0x8000;
/// `sm_XYa` / `compute_XYa`.
pub(crate) const FLAG_ARCH_SPECIFIC: u64 = 0x10_0000;
/// `sm_XYf` / `compute_XYf`.
pub(crate) const FLAG_FAMILY_SPECIFIC: u64 = 0x20_0000;

/// The kind nvcc 13 gives LTO-IR entries (`code=lto_XY`).
const LTO_IR: u16 = 8;

/// What an entry holds.
///
/// ```
/// use cuda_kernel_objects::EntryKind;
/// assert_eq!(EntryKind::from_raw(2), EntryKind::Elf);
/// assert_eq!(EntryKind::from_raw(8), EntryKind::Other(8));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum EntryKind {
    /// PTX text (kind 1), JIT-compiled by the driver.
    Ptx,
    /// A cubin, i.e. SASS in a CUDA ELF (kind 2).
    Elf,
    /// Anything else (LTO IR and older formats), kept as its raw kind number.
    Other(u16),
}

impl EntryKind {
    /// The kind for the raw u16 of an entry header.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_objects::EntryKind::from_raw(1), cuda_kernel_objects::EntryKind::Ptx);
    /// ```
    pub fn from_raw(kind: u16) -> Self {
        match kind {
            1 => EntryKind::Ptx,
            2 => EntryKind::Elf,
            other => EntryKind::Other(other),
        }
    }
}

/// Which GPUs of an architecture an entry is for.
///
/// ```
/// use cuda_kernel_objects::ArchVariant;
/// assert_eq!(ArchVariant::ArchSpecific.suffix(), "a");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum ArchVariant {
    /// `sm_90`: this compute capability and newer minors (PTX: newer GPUs too).
    Generic,
    /// `sm_90a`: exactly this compute capability.
    ArchSpecific,
    /// `sm_100f`: this family (same major, minor at least this one).
    FamilySpecific,
}

impl ArchVariant {
    /// The target-name suffix: `""`, `"a"` or `"f"`.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_objects::ArchVariant::FamilySpecific.suffix(), "f");
    /// ```
    pub fn suffix(self) -> &'static str {
        match self {
            ArchVariant::Generic => "",
            ArchVariant::ArchSpecific => "a",
            ArchVariant::FamilySpecific => "f",
        }
    }
}

/// How an entry's payload was stored.
///
/// ```
/// assert_eq!(cuda_kernel_objects::Compression::Zstd.name(), "zstd");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Compression {
    /// Stored as is.
    None,
    /// A Zstandard frame (flag 0x8000; nvcc 13's default).
    Zstd,
    /// An LZ4 block (flag 0x2000; `--compress-mode=speed`).
    Lz4,
}

impl Compression {
    /// `"none"`, `"zstd"` or `"lz4"`.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_objects::Compression::Lz4.name(), "lz4");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Zstd => "zstd",
            Compression::Lz4 => "lz4",
        }
    }
}

/// One image of a fatbin, with its payload already decompressed.
///
/// ```no_run
/// # fn main() -> Result<(), cuda_kernel_objects::Error> {
/// let bytes = std::fs::read("kernels.fatbin").unwrap();
/// for entry in cuda_kernel_objects::parse(&bytes)?.entries {
///     println!("{} ({} bytes)", entry.target(), entry.payload.len());
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Byte offset of the entry header in the input given to [`parse`](super::parse).
    pub offset: usize,
    /// What the payload is.
    pub kind: EntryKind,
    /// SM / compute number: 75, 80, 90, 100, 120 …
    pub arch: u32,
    /// `a` / `f` variant, from the entry flags.
    pub variant: ArchVariant,
    /// `(major, minor)`: the PTX ISA version for PTX (9.0), the cubin format version for ELF (1.8).
    pub version: (u16, u16),
    /// The raw flags word; see [`Entry::flag_names`].
    pub flags: u64,
    /// Size of the entry header (64, 80, 112 …).
    pub header_size: u32,
    /// How the payload was stored.
    pub compression: Compression,
    /// The payload after decompression (PTX and ELF; entries of other kinds, such as
    /// LTO-IR, as stored). Uncompressed payloads keep the container's zero padding to 8
    /// bytes; PTX text is followed by at least one NUL.
    pub payload: Vec<u8>,
}

impl Entry {
    /// The target name: `sm_90a` for a cubin, `compute_120` for PTX, `lto_90` for LTO-IR.
    ///
    /// ```
    /// use cuda_kernel_objects::{ArchVariant, Compression, Entry, EntryKind};
    /// let e = Entry { offset: 16, kind: EntryKind::Elf, arch: 90, variant: ArchVariant::ArchSpecific,
    ///     version: (1, 8), flags: 0x10_0011, header_size: 64, compression: Compression::None,
    ///     payload: vec![] };
    /// assert_eq!(e.target(), "sm_90a");
    /// ```
    pub fn target(&self) -> String {
        let prefix = match self.kind {
            EntryKind::Ptx => "compute",
            EntryKind::Other(LTO_IR) => "lto",
            _ => "sm",
        };
        format!("{prefix}_{}{}", self.arch, self.variant.suffix())
    }

    /// Names of the flag bits that are set; unknown bits appear in hex.
    ///
    /// ```
    /// use cuda_kernel_objects::{ArchVariant, Compression, Entry, EntryKind};
    /// let e = Entry { offset: 16, kind: EntryKind::Ptx, arch: 120, variant: ArchVariant::Generic,
    ///     version: (9, 0), flags: 0x8011 | 0x4_0000, header_size: 80, compression: Compression::Zstd,
    ///     payload: vec![] };
    /// assert_eq!(e.flag_names(), ["64bit", "linux", "zstd", "0x40000"]);
    /// ```
    pub fn flag_names(&self) -> Vec<String> {
        let mut names: Vec<String> = FLAG_NAMES
            .iter()
            .filter(|(bit, _)| self.flags & bit != 0)
            .map(|(_, name)| (*name).to_owned())
            .collect();
        let known = FLAG_NAMES.iter().fold(0u64, |acc, (bit, _)| acc | bit);
        let unknown = self.flags & !known & !0xF00;
        if unknown != 0 {
            names.push(format!("{unknown:#x}"));
        }
        names
    }

    /// Reads the payload as a cubin or as PTX.
    ///
    /// Errors name this entry ([`Error::InEntry`]) around the image's own error,
    /// or are [`Error::NotAnImage`] for kinds other than PTX and ELF.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), cuda_kernel_objects::Error> {
    /// # let bytes = vec![];
    /// for entry in cuda_kernel_objects::parse(&bytes)?.entries {
    ///     for kernel in entry.image()?.kernels() {
    ///         println!("{}: {} params", kernel.symbol, kernel.params.len());
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn image(&self) -> Result<Image, Error> {
        let image = match self.kind {
            EntryKind::Elf => parse_cubin(&self.payload).map(Image::Cubin),
            EntryKind::Ptx => ptx_text(&self.payload).and_then(parse_ptx).map(Image::Ptx),
            EntryKind::Other(kind) => {
                return Err(Error::NotAnImage {
                    offset: self.offset,
                    kind,
                });
            }
        };
        image.map_err(|inner| Error::InEntry {
            offset: self.offset,
            target: self.target(),
            inner: Box::new(inner),
        })
    }
}

/// The PTX text of a payload: up to the first NUL, which must be followed only by NULs.
fn ptx_text(payload: &[u8]) -> Result<&str, Error> {
    let end = payload
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(payload.len());
    if let Some(pos) = payload[end..].iter().position(|&b| b != 0) {
        return Err(Error::BadPtx {
            line: 0,
            detail: format!(
                "non-NUL byte after the terminating NUL at payload offset {}",
                end + pos
            ),
        });
    }
    std::str::from_utf8(&payload[..end]).map_err(|e| Error::BadPtx {
        line: 0,
        detail: format!("not UTF-8 at payload offset {}", e.valid_up_to()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: EntryKind, payload: &[u8]) -> Entry {
        Entry {
            offset: 16,
            kind,
            arch: 120,
            variant: ArchVariant::Generic,
            version: (9, 0),
            flags: 0x11,
            header_size: 80,
            compression: Compression::None,
            payload: payload.to_vec(),
        }
    }

    #[test]
    fn targets_and_flags() {
        let mut e = entry(EntryKind::Ptx, b"");
        assert_eq!(e.target(), "compute_120");
        e.kind = EntryKind::Elf;
        e.arch = 100;
        e.variant = ArchVariant::FamilySpecific;
        assert_eq!(e.target(), "sm_100f");
        assert_eq!(e.flag_names(), ["64bit", "linux"]);
    }

    #[test]
    fn ptx_payload_must_be_text_then_nuls() {
        let ok = entry(EntryKind::Ptx, b".version 9.0\n.target sm_120\n\0\0\0");
        assert_eq!(ok.image().unwrap().kernels().len(), 0);
        let bad = entry(EntryKind::Ptx, b".version 9.0\0x");
        let err = bad.image().unwrap_err();
        assert!(matches!(err, Error::InEntry { offset: 16, .. }), "{err}");
        assert!(err.to_string().contains("compute_120"));
    }

    #[test]
    fn other_kinds_are_not_images() {
        let e = entry(EntryKind::Other(8), b"");
        assert_eq!(
            e.image(),
            Err(Error::NotAnImage {
                offset: 16,
                kind: 8
            })
        );
    }
}

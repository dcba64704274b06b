//! What kind of compiled CUDA code a byte string is, told from its first bytes: the kinds
//! NVIDIA's object-code model names (and nvJitLink takes as inputs).

use std::fmt;

use crate::container::MAGIC;

/// The magic of NVVM LTO-IR (`nvcc -dlto -ltoir`, `code=lto_XY`), little-endian.
const LTO_IR_MAGIC: u32 = 0x7F4E_43ED;
/// `e_machine` of a device ELF.
const EM_CUDA: u16 = 190;
/// `e_type` of a relocatable ELF.
const ET_REL: u16 = 1;

/// A kind of compiled CUDA code.
///
/// ```
/// use cuda_kernel_objects::CodeKind;
/// assert_eq!(CodeKind::detect(b"\x50\xed\x55\xba\x01\x00\x10\x00"), Some(CodeKind::Fatbin));
/// assert_eq!(CodeKind::detect(b"//\n.version 8.8\n.target sm_90\n"), Some(CodeKind::Ptx));
/// assert_eq!(CodeKind::detect(b"!<arch>\n"), Some(CodeKind::Library));
/// assert_eq!(CodeKind::detect(b"hello"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CodeKind {
    /// A device ELF for one architecture (`nvcc -cubin`); relocatable with `-rdc`
    /// (see [`is_relocatable_cubin`]).
    Cubin,
    /// A fatbin container (`nvcc -fatbin`): cubins, PTX and LTO-IR for several targets.
    Fatbin,
    /// PTX assembly text (`nvcc -ptx`).
    Ptx,
    /// NVVM IR for link-time optimisation (`nvcc -dlto -ltoir`, `code=lto_XY`).
    LtoIr,
    /// A host object holding device code (`nvcc -dc -o x.o`): its fatbin is in `.nv_fatbin`.
    Object,
    /// An archive of host objects holding device code (`ar rcs libk.a x.o y.o`).
    Library,
}

impl CodeKind {
    /// The kind of `bytes`, or `None` when they are none of these.
    ///
    /// ELF files are told apart by machine: a device ELF is a cubin, any other ELF a host
    /// object. Text is PTX when its directives (`.version`, `.target`) say so.
    ///
    /// ```
    /// use cuda_kernel_objects::CodeKind;
    /// let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
    /// elf.resize(20, 0);
    /// elf[18] = 190; // EM_CUDA
    /// assert_eq!(CodeKind::detect(&elf), Some(CodeKind::Cubin));
    /// elf[18] = 62; // x86-64
    /// assert_eq!(CodeKind::detect(&elf), Some(CodeKind::Object));
    /// ```
    pub fn detect(bytes: &[u8]) -> Option<CodeKind> {
        let word = |at: usize| -> Option<u32> {
            Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        match word(0) {
            Some(MAGIC) => return Some(CodeKind::Fatbin),
            Some(LTO_IR_MAGIC) => return Some(CodeKind::LtoIr),
            _ => {}
        }
        if bytes.starts_with(b"!<arch>\n") {
            return Some(CodeKind::Library);
        }
        if bytes.starts_with(b"\x7fELF") {
            return Some(match elf_u16(bytes, 18) {
                Some(EM_CUDA) => CodeKind::Cubin,
                _ => CodeKind::Object,
            });
        }
        is_ptx(bytes).then_some(CodeKind::Ptx)
    }

    /// Whether the driver loads this kind directly (`cuModuleLoadData`,
    /// `cuLibraryLoadData`): a fatbin, PTX, or a cubin that is not relocatable. The
    /// others must be linked first.
    ///
    /// ```
    /// assert!(cuda_kernel_objects::CodeKind::Fatbin.is_loadable());
    /// assert!(!cuda_kernel_objects::CodeKind::LtoIr.is_loadable());
    /// ```
    pub fn is_loadable(self) -> bool {
        matches!(self, CodeKind::Cubin | CodeKind::Fatbin | CodeKind::Ptx)
    }

    /// The kind's name as nvJitLink and cuda.core spell it (`cubin`, `ltoir`, ...).
    ///
    /// ```
    /// assert_eq!(cuda_kernel_objects::CodeKind::LtoIr.name(), "ltoir");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            CodeKind::Cubin => "cubin",
            CodeKind::Fatbin => "fatbin",
            CodeKind::Ptx => "ptx",
            CodeKind::LtoIr => "ltoir",
            CodeKind::Object => "object",
            CodeKind::Library => "library",
        }
    }
}

impl fmt::Display for CodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether `bytes` are a relocatable device ELF (`nvcc -rdc=true -cubin`), which must be
/// linked before the driver can load it.
///
/// ```
/// let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
/// elf.resize(20, 0);
/// elf[16] = 1; // ET_REL
/// elf[18] = 190;
/// assert!(cuda_kernel_objects::is_relocatable_cubin(&elf));
/// ```
pub fn is_relocatable_cubin(bytes: &[u8]) -> bool {
    CodeKind::detect(bytes) == Some(CodeKind::Cubin) && elf_u16(bytes, 16) == Some(ET_REL)
}

/// A little-endian `u16` of an ELF header.
fn elf_u16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

/// Whether `bytes` read as PTX: text whose first directive is `.version` and that names a
/// `.target`.
fn is_ptx(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // A cut in the middle of a character at the 4 KiB boundary.
        Err(e) if e.valid_up_to() > 0 && head.len() == 4096 => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    let mut directives = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"));
    directives.next().is_some_and(|l| l.starts_with(".version")) && text.contains(".target")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_needs_its_directives() {
        assert!(is_ptx(
            b"\n// Generated by NVIDIA NVVM Compiler\n\n.version 9.0\n.target sm_90\n"
        ));
        assert!(!is_ptx(b".target sm_90\n"));
        assert!(!is_ptx(b"\xff\xfe.version"));
        assert_eq!(
            CodeKind::detect(b"\xed\x43\x4e\x7f\x01\x41"),
            Some(CodeKind::LtoIr)
        );
    }
}

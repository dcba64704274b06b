//! The PTX text ptxas embeds in a cubin compiled with line tables (`.nv_debug_ptx_txt`),
//! left out before a module's images are joined (on by default; `ptx_text = true`,
//! `Build::ptx_text(true)` or `KERNEL_BUILD_PTX_TEXT=1` keep it).
//!
//! The text is about half of a cubin with line tables and more than half of its
//! compressed size; ptxas has no option to omit it (`--suppress-debug-info` drops the line
//! tables too). Only a tool's view of the PTX lines needs it: the CUDA line tables
//! (`.debug_line`, `.nv_debug_line_sass`) that compute-sanitizer, cuda-gdb and Nsight
//! Compute read stay.
//!
//! How: the section's bytes are zeroed and its size set to 0, in place. Nothing moves: every
//! other section, the symbol table (whose indices `.nv.info` records, `.nv.callgraph` and
//! each `.text` section's `sh_info` hold as plain numbers) and the program headers stay
//! byte for byte, and the zeros cost a few bytes once the entry is compressed. `object`'s
//! ELF builder cannot rewrite a cubin: it refuses the CUDA section types (`SHT_LOPROC`
//! and above, `.nv.info`), program headers that do not follow the file header (a cubin
//! keeps them at its end), and it would put local symbols first, renumbering the symbols
//! those records name.

use object::Endianness;
use object::elf::{self, FileHeader64, SectionHeader64};
use object::read::elf::{FileHeader as _, SectionHeader as _};

/// The section ptxas writes the PTX text into.
pub(crate) const SECTION: &[u8] = b".nv_debug_ptx_txt";

/// Whether the build leaves the PTX text out of a module's cubins: only with line tables
/// on and no debug build (a debug build keeps everything for cuda-gdb), and unless the
/// module keeps it (its own `keep`, else `KERNEL_BUILD_PTX_TEXT`).
pub(crate) fn leave_out_wanted(
    keep: Option<bool>,
    debug: crate::model::options::DeviceDebug,
    reporting: crate::env::Reporting,
) -> bool {
    if debug != crate::model::options::DeviceDebug::Lines {
        return false;
    }
    let keep = keep
        .or_else(|| crate::env::switch(crate::env::Var::PTX_TEXT, reporting))
        .unwrap_or(false);
    !keep
}

/// `cubin` with its PTX text left out; `None` when there is none to leave out (no such
/// section, already empty), when the bytes are not a 64-bit ELF this can read, or when a
/// relocation section applies to it (never seen; kept as it is rather than guessed at).
pub fn left_out(cubin: &[u8]) -> Option<Vec<u8>> {
    let header = FileHeader64::<Endianness>::parse(cubin).ok()?;
    let endian = header.endian().ok()?;
    let sections = header.sections(endian, cubin).ok()?;
    let (index, section) = sections.section_by_name(endian, SECTION)?;
    if section.sh_type(endian) == elf::SHT_NOBITS {
        return None;
    }
    let (offset, size) = section.file_range(endian)?;
    if size == 0 {
        return None;
    }
    let relocated = sections.iter().any(|s| {
        matches!(s.sh_type(endian), elf::SHT_REL | elf::SHT_RELA)
            && s.sh_info(endian) as usize == index.0
    });
    if relocated {
        return None;
    }
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(size).ok()?)?;
    let at = usize::try_from(header.e_shoff(endian)).ok()?.checked_add(
        index
            .0
            .checked_mul(usize::from(header.e_shentsize(endian)))?,
    )?;
    let mut out = cubin.to_vec();
    out.get_mut(start..end)?.fill(0);
    let (entry, _) =
        object::pod::from_bytes_mut::<SectionHeader64<Endianness>>(out.get_mut(at..)?).ok()?;
    entry.sh_size.set(endian, 0);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_an_elf_with_the_section_is_left_alone() {
        assert!(left_out(b"").is_none());
        assert!(left_out(b"\x7fELF\x02\x01\x01").is_none());
        assert!(left_out(&[0u8; 256]).is_none());
    }

    #[test]
    fn only_line_tables_without_a_debug_build_are_stripped() {
        use crate::env::Reporting;
        use crate::model::options::DeviceDebug;
        let r = Reporting::Silent;
        assert!(!leave_out_wanted(Some(true), DeviceDebug::Lines, r));
        assert!(leave_out_wanted(Some(false), DeviceDebug::Lines, r));
        assert!(!leave_out_wanted(Some(false), DeviceDebug::None, r));
        assert!(!leave_out_wanted(Some(false), DeviceDebug::Full, r));
    }
}

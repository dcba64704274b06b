//! Cubins (CUDA ELF): kernels are `STT_FUNC` symbols with `STO_CUDA_ENTRY` (0x10) in
//! `st_other`; their layouts come from `.nv.info.<kernel>`, registers from the module-wide
//! `.nv.info` or the `.text.<kernel>` section's `sh_info >> 24`.

use object::LittleEndian as LE;
use object::elf::{self, FileHeader64, SectionHeader64};
use object::read::elf::{FileHeader, SectionHeader, SectionTable, Sym};

use super::error::Error;
use super::image::{GlobalImage, KernelImage};
use super::nvinfo;

/// `EM_CUDA`.
const EM_CUDA: u16 = 190;
/// `st_other` bit marking a kernel entry point.
const STO_CUDA_ENTRY: u8 = 0x10;
/// `SHT_CUDA_INFO`, the type of `.nv.info` sections.
const SHT_CUDA_INFO: u32 = 0x7000_0000;
/// ABI version from which the SM number sits in bits 8..16 of `e_flags`.
const ABI_V2: u8 = 8;

/// What a cubin holds.
///
/// ```no_run
/// let bytes = std::fs::read("saxpy.cubin").unwrap();
/// let cubin = cuda_kernel_objects::parse_cubin(&bytes)?;
/// println!("sm_{}: {} kernels", cubin.sm, cubin.kernels.len());
/// # Ok::<(), cuda_kernel_objects::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Cubin {
    /// SM number from `e_flags` (90 for both `sm_90` and `sm_90a`).
    pub sm: u32,
    /// `EI_ABIVERSION` (8 for every nvcc 13 cubin).
    pub abi_version: u8,
    /// `e_type`: 2 (`ET_EXEC`) for loadable cubins, 1 (`ET_REL`) for `-rdc` objects.
    pub e_type: u16,
    /// Kernels in symbol-table order.
    pub kernels: Vec<KernelImage>,
    /// `__constant__` and `__device__` variables.
    pub globals: Vec<GlobalImage>,
    /// Whether the cubin holds line tables (`.nv_debug_line_sass`, from `-lineinfo` or
    /// `-G`).
    pub line_tables: bool,
    /// Bytes of the PTX text ptxas embeds with line tables (`.nv_debug_ptx_txt`); 0 when
    /// the section is absent or was emptied by the build.
    pub ptx_text: u64,
}

fn bad(detail: impl Into<String>) -> Error {
    Error::BadCubin {
        offset: 0,
        detail: detail.into(),
    }
}

fn elf_err(what: &str) -> impl Fn(object::read::Error) -> Error + '_ {
    move |e| bad(format!("{what}: {e}"))
}

/// Reads a cubin.
///
/// Errors on anything that is not a little-endian 64-bit CUDA ELF and on malformed
/// sections, symbols or `.nv.info` records.
///
/// ```
/// let err = cuda_kernel_objects::parse_cubin(b"\x7fELF").unwrap_err();
/// assert!(err.to_string().starts_with("cubin:"));
/// ```
pub fn parse_cubin(bytes: &[u8]) -> Result<Cubin, Error> {
    let header = FileHeader64::<LE>::parse(bytes).map_err(elf_err("ELF header"))?;
    let endian = header.endian().map_err(elf_err("ELF header"))?;
    let machine = header.e_machine(endian);
    if machine != EM_CUDA {
        return Err(bad(format!(
            "e_machine is {machine}, not EM_CUDA ({EM_CUDA})"
        )));
    }
    let abi_version = header.e_ident().abi_version;
    let flags = header.e_flags(endian);
    let sm = if abi_version >= ABI_V2 {
        (flags >> 8) & 0xff
    } else {
        flags & 0xff
    };
    let sections = header
        .sections(endian, bytes)
        .map_err(elf_err("section table"))?;
    let symbols = sections
        .symbols(endian, bytes, elf::SHT_SYMTAB)
        .map_err(elf_err("symbol table"))?;
    let regcounts = match sections.section_by_name(endian, b".nv.info") {
        Some((_, s)) => nvinfo::register_counts(section_data(s, bytes)?)?,
        None => Vec::new(),
    };
    let mut kernels = Vec::new();
    let mut globals = Vec::new();
    for (index, sym) in symbols.iter().enumerate() {
        let name = symbols
            .symbol_name(endian, sym)
            .map_err(elf_err("symbol name"))?;
        let name = String::from_utf8_lossy(name).into_owned();
        let shndx = sym.st_shndx(endian);
        match sym.st_type() {
            elf::STT_FUNC if sym.st_other() & STO_CUDA_ENTRY != 0 => {
                let mut kernel = KernelImage {
                    symbol: name,
                    is_local: sym.st_bind() == elf::STB_LOCAL,
                    ..KernelImage::default()
                };
                kernel.registers = regcounts
                    .iter()
                    .find(|(s, _)| usize::try_from(*s).ok() == Some(index))
                    .map(|&(_, r)| r);
                if let Some(text) = defined(shndx) {
                    let text_section = sections.section(text).map_err(elf_err("kernel section"))?;
                    kernel.registers = kernel
                        .registers
                        .or(Some(text_section.sh_info(endian) >> 24));
                    if let Some(info) = kernel_info(&sections, text, bytes)? {
                        let section = format!(".nv.info.{}", kernel.symbol);
                        nvinfo::apply_kernel_info(&section, info, &mut kernel)?;
                    }
                }
                kernels.push(kernel);
            }
            elf::STT_OBJECT => {
                if let Some(global) = global(&sections, shndx, name, sym.st_size(endian))? {
                    globals.push(global);
                }
            }
            _ => {}
        }
    }
    let line_tables = sections
        .section_by_name(endian, b".nv_debug_line_sass")
        .is_some();
    let ptx_text = match sections.section_by_name(endian, b".nv_debug_ptx_txt") {
        Some((_, s)) if s.sh_type(endian) != elf::SHT_NOBITS => s.sh_size(endian),
        _ => 0,
    };
    Ok(Cubin {
        sm,
        abi_version,
        e_type: header.e_type(endian),
        kernels,
        globals,
        line_tables,
        ptx_text,
    })
}

/// A regular section index, or `None` for undefined and reserved ones.
fn defined(shndx: u16) -> Option<object::SectionIndex> {
    (shndx != elf::SHN_UNDEF && shndx < elf::SHN_LORESERVE)
        .then_some(object::SectionIndex(shndx.into()))
}

fn section_data<'a>(section: &SectionHeader64<LE>, bytes: &'a [u8]) -> Result<&'a [u8], Error> {
    section.data(LE, bytes).map_err(|_| {
        let offset = usize::try_from(section.sh_offset(LE)).unwrap_or(usize::MAX);
        Error::BadCubin {
            offset,
            detail: "section data past the end of the file".into(),
        }
    })
}

/// The `.nv.info` section describing the kernel whose code is in section `text`.
fn kernel_info<'a>(
    sections: &SectionTable<'a, FileHeader64<LE>>,
    text: object::SectionIndex,
    bytes: &'a [u8],
) -> Result<Option<&'a [u8]>, Error> {
    let info = sections.iter().find(|s| {
        s.sh_type(LE) == SHT_CUDA_INFO && usize::try_from(s.sh_info(LE)).ok() == Some(text.0)
    });
    info.map(|s| section_data(s, bytes)).transpose()
}

/// A module global if the symbol is a named object in a constant or global-memory section.
fn global(
    sections: &SectionTable<'_, FileHeader64<LE>>,
    shndx: u16,
    name: String,
    size: u64,
) -> Result<Option<GlobalImage>, Error> {
    let Some(index) = defined(shndx) else {
        return Ok(None);
    };
    if name.is_empty() || name.starts_with(['$', '.']) {
        return Ok(None);
    }
    let section = sections
        .section(index)
        .map_err(elf_err("global's section"))?;
    let section_name = sections
        .section_name(LE, section)
        .map_err(elf_err("section name"))?;
    let constant = if section_name.starts_with(b".nv.constant") {
        true
    } else if section_name.starts_with(b".nv.global") {
        false
    } else {
        return Ok(None);
    };
    Ok(Some(GlobalImage {
        symbol: name,
        size,
        constant,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64-byte ELF64 little-endian header with no sections.
    fn header(machine: u16, abi_version: u8, flags: u32) -> Vec<u8> {
        let mut h = vec![0u8; 64];
        h[..8].copy_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1, 1, 0x41]);
        h[8] = abi_version;
        h[16..18].copy_from_slice(&2u16.to_le_bytes());
        h[18..20].copy_from_slice(&machine.to_le_bytes());
        h[20..24].copy_from_slice(&1u32.to_le_bytes());
        h[48..52].copy_from_slice(&flags.to_le_bytes());
        h[52..54].copy_from_slice(&64u16.to_le_bytes());
        h
    }

    #[test]
    fn sm_number_depends_on_the_abi_version() {
        let v2 = parse_cubin(&header(EM_CUDA, 8, 0x0600_5a04)).unwrap();
        assert_eq!((v2.sm, v2.abi_version, v2.e_type), (90, 8, 2));
        assert!(v2.kernels.is_empty() && v2.globals.is_empty());
        assert_eq!(
            parse_cubin(&header(EM_CUDA, 7, 0x0050_0550)).unwrap().sm,
            0x50
        );
    }

    #[test]
    fn non_cuda_and_truncated_files_are_errors() {
        let err = parse_cubin(&header(62, 0, 0)).unwrap_err();
        assert!(err.to_string().contains("e_machine is 62"), "{err}");
        assert!(parse_cubin(&header(EM_CUDA, 8, 0)[..40]).is_err());
        let mut bad_sections = header(EM_CUDA, 8, 0);
        bad_sections[40..48].copy_from_slice(&4096u64.to_le_bytes()); // e_shoff past the end
        bad_sections[58..60].copy_from_slice(&64u16.to_le_bytes());
        bad_sections[60..62].copy_from_slice(&3u16.to_le_bytes());
        assert!(parse_cubin(&bad_sections).is_err());
    }
}

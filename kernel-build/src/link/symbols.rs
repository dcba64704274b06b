//! Device symbols across files: the definitions a device link would see twice (read from
//! the relocatable cubins before linking, since nvJitLink only prints those), and the
//! problems named in nvJitLink's error log.

use object::LittleEndian as LE;
use object::elf::{self, FileHeader64};
use object::read::elf::{FileHeader, Sym};
use std::collections::BTreeMap;

/// One symbol problem of a device link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SymbolProblem {
    /// Used in `files` and defined nowhere.
    Undefined { symbol: String, files: Vec<String> },
    /// Defined (strongly) in every one of `files`.
    Duplicate { symbol: String, files: Vec<String> },
}

impl SymbolProblem {
    /// The message line: the symbol (demangled where it is C++) and the files.
    pub(crate) fn describe(&self) -> String {
        match self {
            SymbolProblem::Undefined { symbol, files } if files.is_empty() => format!(
                "device symbol {} is used but defined in no file of the module",
                pretty(symbol)
            ),
            SymbolProblem::Undefined { symbol, files } => format!(
                "device symbol {} is used in {} but defined in no file of the module",
                pretty(symbol),
                quoted(files)
            ),
            SymbolProblem::Duplicate { symbol, files } => format!(
                "device symbol {} is defined in more than one file: {}",
                pretty(symbol),
                quoted(files)
            ),
        }
    }
}

fn quoted(files: &[String]) -> String {
    files
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `` `twice(float)` (`_Z5twicef`) `` for a mangled name, `` `name` `` otherwise.
fn pretty(symbol: &str) -> String {
    match cpp_demangle::Symbol::new(symbol)
        .ok()
        .and_then(|s| s.demangle(&cpp_demangle::DemangleOptions::default()).ok())
    {
        Some(d) if d != symbol => format!("`{d}` (`{symbol}`)"),
        _ => format!("`{symbol}`"),
    }
}

/// The global, non-weak symbols defined in a relocatable cubin (functions and variables).
pub(crate) fn strong_definitions(cubin: &[u8]) -> Vec<String> {
    let Ok(header) = FileHeader64::<LE>::parse(cubin) else {
        return Vec::new();
    };
    let Ok(endian) = header.endian() else {
        return Vec::new();
    };
    let Ok(sections) = header.sections(endian, cubin) else {
        return Vec::new();
    };
    let Ok(symbols) = sections.symbols(endian, cubin, elf::SHT_SYMTAB) else {
        return Vec::new();
    };
    symbols
        .iter()
        .filter(|s| s.st_bind() == elf::STB_GLOBAL)
        .filter(|s| matches!(s.st_type(), elf::STT_FUNC | elf::STT_OBJECT))
        .filter(|s| {
            let i = s.st_shndx(endian);
            i != elf::SHN_UNDEF && i < elf::SHN_LORESERVE
        })
        .filter_map(|s| symbols.symbol_name(endian, s).ok())
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect()
}

/// Symbols defined strongly by more than one of `(file, cubin)`.
pub(crate) fn duplicates(objects: &[(&str, &[u8])]) -> Vec<SymbolProblem> {
    let mut by_symbol: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (file, cubin) in objects {
        for s in strong_definitions(cubin) {
            by_symbol.entry(s).or_default().push((*file).to_owned());
        }
    }
    by_symbol
        .into_iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(symbol, files)| SymbolProblem::Duplicate { symbol, files })
        .collect()
}

/// The problems nvJitLink's error log names: `Undefined reference to 'S' in 'F'`
/// (device linking), `Unresolved extern function 'S'` (after LTO), and
/// `F: link error: ... Linking globals named 'S': symbol multiply defined!` (LTO).
pub(crate) fn from_log(log: &str) -> Vec<SymbolProblem> {
    let mut undefined: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut duplicate: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in log.lines() {
        if let Some(rest) = after(line, "Undefined reference to '") {
            let (symbol, tail) = split_quote(rest);
            let file = after(tail, " in '").map(|f| split_quote(f).0.to_owned());
            let files = undefined.entry(symbol.to_owned()).or_default();
            files.extend(file.filter(|f| !files.contains(f)));
        } else if let Some(rest) = after(line, "Unresolved extern function '") {
            undefined.entry(split_quote(rest).0.to_owned()).or_default();
        } else if let Some(rest) = after(line, "Linking globals named '") {
            let symbol = split_quote(rest).0.to_owned();
            let file = line.split(": link error").next().filter(|f| *f != line);
            let files = duplicate.entry(symbol).or_default();
            files.extend(file.map(str::to_owned));
        }
    }
    let undefined = undefined
        .into_iter()
        .map(|(symbol, files)| SymbolProblem::Undefined { symbol, files });
    let duplicate = duplicate
        .into_iter()
        .map(|(symbol, files)| SymbolProblem::Duplicate { symbol, files });
    undefined.chain(duplicate).collect()
}

fn after<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.find(marker).map(|i| &line[i + marker.len()..])
}

fn split_quote(s: &str) -> (&str, &str) {
    match s.find('\'') {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undefined_references_name_symbol_and_files() {
        let log = "error   : Undefined reference to '_Z5twicef' in 'a.cu'\n\
                   error   : Undefined reference to 'counter' in 'a.cu'\n\
                   error   : Undefined reference to '_Z5twicef' in 'c.cu'\nERROR 9: finish";
        let p = from_log(log);
        assert_eq!(
            p,
            [
                SymbolProblem::Undefined {
                    symbol: "_Z5twicef".into(),
                    files: vec!["a.cu".into(), "c.cu".into()]
                },
                SymbolProblem::Undefined {
                    symbol: "counter".into(),
                    files: vec!["a.cu".into()]
                },
            ]
        );
        assert_eq!(
            p[0].describe(),
            "device symbol `twice(float)` (`_Z5twicef`) is used in `a.cu`, `c.cu` but defined in no file of the module"
        );
    }

    #[test]
    fn lto_log_problems() {
        let log = "ERROR in nvvmCompileProgram: NVVM_ERROR_COMPILATION\n\
                   c.cu: link error: error: Linking globals named 'counter': symbol multiply defined!\n";
        assert_eq!(
            from_log(log),
            [SymbolProblem::Duplicate {
                symbol: "counter".into(),
                files: vec!["c.cu".into()]
            }]
        );
        let log = "ptxas fatal   : Unresolved extern function '_Z5twicef'\n";
        assert_eq!(
            from_log(log),
            [SymbolProblem::Undefined {
                symbol: "_Z5twicef".into(),
                files: vec![]
            }]
        );
    }

    #[test]
    fn non_elf_bytes_define_nothing() {
        assert!(strong_definitions(b"not an elf").is_empty());
        assert!(duplicates(&[("a.cu", b"x"), ("b.cu", b"y")]).is_empty());
    }
}

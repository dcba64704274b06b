//! Measuring types with the compiler: the size and alignment of the types the front end
//! can name but not lay out (see `verify::opaque`) are asked of nvcc itself, never guessed.
//!
//! The probe is a file that includes the user's `.cu` (so every type it names means what
//! it means there) and explicitly instantiates one empty kernel per type,
//! `kernel_build_probe_<index, sizeof(T), alignof(T)>`; nvcc compiles it to PTX for the
//! module's virtual architectures (all of them: libraries such as CUB name their inline
//! namespaces after the architecture list, `cub::CUB_300001_SM_800_900`) with the unit's
//! includes, defines and flags, and the mangled names of the entries carry the answers. A
//! type the compiler rejects (private, not complete) is named by its line of the probe in
//! nvcc's errors; the probe runs once more without it, and it stays unmeasured with nvcc's
//! reason.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::messages::{self, Severity};
use crate::front::demangle::{demangle, int_value};

/// The name the probe's lines carry in nvcc's messages (`#line`).
const PROBE_FILE: &str = "kernel-build-probe";

/// One probe of one translation unit.
pub(crate) struct Probe<'a> {
    pub nvcc: &'a Path,
    /// The user's file, included by the probe.
    pub source: &'a Path,
    pub includes: &'a [PathBuf],
    pub defines: &'a [(String, Option<String>)],
    pub flags: &'a [String],
    /// The virtual architectures the probe compiles for (`compute_80`, `compute_90`), those
    /// of the module's targets.
    pub archs: Vec<String>,
    /// The unit is compiled for device linking (`-rdc=true`).
    pub rdc: bool,
    pub debug: bool,
}

/// What the compiler answered per item (the probe template's two values), and the items it
/// rejected with why.
#[derive(Debug, Default)]
pub(crate) struct Asked {
    pub answered: Vec<(String, u64, u64)>,
    pub failed: Vec<(String, String)>,
}

/// What the compiler measured, and the types it could not measure with why.
#[derive(Debug, Default)]
pub(crate) struct Measurements {
    pub measured: Vec<Measured>,
    pub failed: Vec<(String, String)>,
}

impl Probe<'_> {
    /// Measures `types` (C++ spellings as the demangler prints them): at most two nvcc
    /// runs, the second without the types the first one rejected.
    pub(crate) fn measure(&self, types: &[String]) -> Measurements {
        let asked = self.ask(types, &size_and_align);
        Measurements {
            measured: asked
                .answered
                .into_iter()
                .map(|(name, size, align)| Measured { name, size, align })
                .collect(),
            failed: asked.failed,
        }
    }

    /// Evaluates integer constants (macros, `constexpr` variables, enumerators, any
    /// expression of the unit) as the compiler sees them: each value is read as a 64-bit
    /// two's-complement number, with nvcc's reason for those it rejects.
    pub(crate) fn evaluate(&self, names: &[String]) -> Asked {
        self.ask(names, &|name| format!("(unsigned long long)({name}), 0ull"))
    }

    /// Asks nvcc `args(item)` (the probe template's second and third arguments) for each
    /// item: at most two nvcc runs, the second without the items the first one rejected.
    fn ask(&self, items: &[String], args: &dyn Fn(&str) -> String) -> Asked {
        let mut out = Asked::default();
        let types = items;
        let mut left: Vec<usize> = (0..types.len()).collect();
        for attempt in 0..2 {
            if left.is_empty() {
                break;
            }
            match self.run(&source(self.source, types, &left, args)) {
                Ok(found) => {
                    for (index, a, b) in found {
                        if let Some(name) = types.get(index) {
                            out.answered.push((name.clone(), a, b));
                        }
                    }
                    left.retain(|i| !out.answered.iter().any(|m| m.0 == types[*i]));
                    for i in left.drain(..) {
                        out.failed
                            .push((types[i].clone(), "the probe's entry is missing".into()));
                    }
                }
                Err(output) => {
                    let rejected = rejected_lines(&output, left.len());
                    if rejected.is_empty() || attempt == 1 {
                        let why = first_error(&output);
                        out.failed
                            .extend(left.drain(..).map(|i| (types[i].clone(), why.clone())));
                        break;
                    }
                    // Lines are 1-based positions in `left`.
                    let mut keep = Vec::new();
                    for (pos, &i) in left.iter().enumerate() {
                        match rejected.iter().find(|(line, _)| *line == pos + 1) {
                            Some((_, why)) => out.failed.push((types[i].clone(), why.clone())),
                            None => keep.push(i),
                        }
                    }
                    left = keep;
                }
            }
        }
        out
    }

    /// Measures the layouts `plan` asks about with the table of
    /// [`layouts`](super::layouts), in one more compile of the unit: for what the unit's own
    /// compile could not measure (a type the front end found only in the compiled views, a
    /// unit compiled to LTO-IR, which no reader opens). At most two nvcc runs, the second
    /// without the types the first one rejected. The tables per image, and the items nvcc
    /// refused with its reason.
    pub(crate) fn measure_layouts(
        &self,
        plan: &super::layouts::Plan,
    ) -> (super::layouts::Tables, super::layouts::Refused) {
        let mut rejected: Vec<(usize, String)> = Vec::new();
        for attempt in 0..2 {
            let left_out: Vec<usize> = rejected.iter().map(|(i, _)| *i).collect();
            match self.compile(&plan.wrapper_text(self.source, &left_out)) {
                Ok(fatbin) => return (super::layouts::tables_of(&fatbin), rejected),
                Err(output) => {
                    let refused = plan.rejected(&output);
                    if refused.is_empty() || attempt == 1 {
                        let why = first_error(&output);
                        rejected.extend(
                            (0..plan.items.len())
                                .filter(|i| !left_out.contains(i))
                                .map(|i| (i, why.clone())),
                        );
                        break;
                    }
                    rejected.extend(refused);
                }
            }
        }
        (Vec::new(), rejected)
    }

    /// One nvcc run of the probe `text`: the entries' `(index, a, b)`, or everything nvcc
    /// printed when it failed.
    fn run(&self, text: &str) -> Result<Vec<(usize, u64, u64)>, String> {
        let fatbin = self.compile(text)?;
        let mut found = Vec::new();
        for entry in &fatbin.entries {
            if let Ok(image) = entry.image() {
                for k in image.kernels() {
                    if let Some(m) = read_probe_symbol(&k.symbol)
                        && !found.contains(&m)
                    {
                        found.push(m);
                    }
                }
            }
        }
        Ok(found)
    }

    /// One nvcc run of a probe `text`: its fatbin, or everything nvcc printed when it
    /// failed.
    fn compile(&self, text: &str) -> Result<cuda_kernel_objects::Fatbin, String> {
        let dir = tempfile::Builder::new()
            .prefix("kernel-build-probe-")
            .tempdir()
            .map_err(|e| format!("cannot make a folder for the probe: {e}"))?;
        let file = dir.path().join("probe.cu");
        let out = dir.path().join("probe.fatbin");
        std::fs::write(&file, text).map_err(|e| format!("cannot write the probe: {e}"))?;
        let mut args: Vec<OsString> = vec!["-fatbin".into()];
        for arch in &self.archs {
            args.push(format!("-gencode=arch={arch},code={arch}").into());
        }
        if self.rdc {
            args.push("-rdc=true".into());
        }
        args.extend(super::include_and_define_args(self.includes, self.defines));
        args.extend(self.flags.iter().map(OsString::from));
        args.extend(["-o".into(), out.as_os_str().to_owned()]);
        args.extend(["-x".into(), "cu".into(), file.as_os_str().to_owned()]);
        match super::run(self.nvcc, &args, self.debug) {
            Ok(_) => {
                let bytes = std::fs::read(&out)
                    .map_err(|e| format!("cannot read the probe's fatbin: {e}"))?;
                cuda_kernel_objects::parse(&bytes)
                    .map_err(|e| format!("cannot read the probe's fatbin: {e}"))
            }
            Err(crate::error::Error::NvccFailed { output, .. }) => Err(output),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// The probe's question about a type.
fn size_and_align(t: &str) -> String {
    let t = probe_spelling(t);
    format!("sizeof({t}), alignof({t})")
}

/// The probe's text: the user's file, the probe template, one instantiation per line.
fn source(user: &Path, items: &[String], which: &[usize], args: &dyn Fn(&str) -> String) -> String {
    let path = user.display().to_string();
    let quoted = path.replace('\\', "\\\\").replace('"', "\\\"");
    let mut s = format!(
        "#include \"{quoted}\"\n\
         template <unsigned long long I, unsigned long long S, unsigned long long A>\n\
         __global__ void kernel_build_probe_() {{}}\n\
         #line 1 \"{PROBE_FILE}\"\n"
    );
    for &i in which {
        let args = args(&items[i]);
        s.push_str(&format!(
            "template __global__ void kernel_build_probe_<{i}ull, {args}>();\n"
        ));
    }
    s
}

/// The probe lines (1-based, at most `count`) nvcc's errors point at, with the error.
fn rejected_lines(output: &str, count: usize) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for m in messages::parse(output)
        .into_iter()
        .filter(|m| m.severity == Severity::Error)
    {
        let Some(file) = m.file.as_deref() else {
            continue;
        };
        if !file.ends_with(PROBE_FILE) {
            continue;
        }
        let Some(line) = m.line.and_then(|l| usize::try_from(l).ok()) else {
            continue;
        };
        if (1..=count).contains(&line) && !out.iter().any(|(l, _)| *l == line) {
            out.push((line, m.text.clone()));
        }
    }
    out
}

/// nvcc's first error, for types that stay unmeasured.
fn first_error(output: &str) -> String {
    messages::parse(output)
        .into_iter()
        .find(|m| m.severity == Severity::Error)
        .map(|m| m.text)
        .or_else(|| {
            output
                .lines()
                .find(|l| !l.trim().is_empty())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "nvcc failed without a message".into())
}

/// A type measured by the compiler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Measured {
    /// The C++ spelling as the symbol's demangling prints it (the opaque struct's name).
    pub name: String,
    pub size: u64,
    pub align: u64,
}

/// The C++ spelling a probe at the end of the file names `ty` by: the demangler's
/// spelling without the anonymous namespace (the probe is in the same file).
pub(crate) fn probe_spelling(ty: &str) -> String {
    ty.replace("__anonymous_namespace__::", "")
}

/// The measurements a probe's kernel names carry: `kernel_build_probe_<I, S, A>`.
pub(crate) fn read_probe_symbol(symbol: &str) -> Option<(usize, u64, u64)> {
    let d = demangle(symbol)?;
    if d.name != "kernel_build_probe_" || d.template_args.len() != 3 {
        return None;
    }
    // Values past i64::MAX (a negative constant read as unsigned) parse as u64 directly.
    let num = |s: &str| -> Option<u64> {
        let t = s.trim();
        let t = match t.strip_prefix('(') {
            Some(cast) => cast.split_once(')').map_or(t, |(_, v)| v),
            None => t,
        };
        match t.trim_end_matches(['u', 'U', 'l', 'L']).parse::<u64>() {
            Ok(v) => Some(v),
            Err(_) => u64::try_from(int_value(s)?).ok(),
        }
    };
    Some((
        usize::try_from(num(&d.template_args[0])?).ok()?,
        num(&d.template_args[1])?,
        num(&d.template_args[2])?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_symbols_carry_index_size_and_alignment() {
        assert_eq!(probe_spelling("__anonymous_namespace__::P"), "P");
        // kernel_build_probe_<3ull, 48ull, 16ull>()
        assert_eq!(
            read_probe_symbol("_Z19kernel_build_probe_ILy3ELy48ELy16EEvv"),
            Some((3, 48, 16))
        );
        assert_eq!(read_probe_symbol("_Z1kv"), None);
    }

    #[test]
    fn constants_are_asked_as_unsigned_64_bit_values() {
        let names = vec!["TILE".to_owned()];
        let s = source(Path::new("/src/k.cu"), &names, &[0], &|n| {
            format!("(unsigned long long)({n}), 0ull")
        });
        assert!(
            s.ends_with("kernel_build_probe_<0ull, (unsigned long long)(TILE), 0ull>();\n"),
            "{s}"
        );
    }

    #[test]
    fn the_probe_names_each_type_on_its_own_line() {
        let types = vec!["Flags".to_owned(), "__anonymous_namespace__::P".to_owned()];
        let s = source(Path::new("/src/k.cu"), &types, &[0, 1], &size_and_align);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "#include \"/src/k.cu\"");
        assert_eq!(lines[3], "#line 1 \"kernel-build-probe\"");
        assert_eq!(
            lines[4],
            "template __global__ void kernel_build_probe_<0ull, sizeof(Flags), alignof(Flags)>();"
        );
        assert!(lines[5].contains("sizeof(P), alignof(P)"), "{}", lines[5]);
    }

    #[test]
    fn rejected_lines_are_read_back() {
        let out = "kernel-build-probe(2): error: incomplete type \"Fwd\" is not allowed\n\
                   1 error detected in the compilation of \"probe.cu\".\n";
        let r = rejected_lines(out, 2);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].0, 2);
        assert!(r[0].1.contains("incomplete type"), "{}", r[0].1);
        assert!(rejected_lines(out, 1).is_empty());
    }
}

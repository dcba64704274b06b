//! [`Linker`]: several pieces of compiled code linked at run time into one cubin for one
//! target, through nvJitLink (NVIDIA's JIT linker, loaded when first needed), then loaded
//! as a [`RawModule`].
//!
//! Any mix of cubins (relocatable `-rdc` ones included), PTX, LTO-IR, fatbins, host objects
//! and libraries links; with LTO-IR among the inputs the link optimises across them (`-lto`).
//! Linking needs no GPU: [`Linker::link_for`] names the target.

use std::path::PathBuf;
use std::sync::Arc;

use cuda_kernel_objects::CodeKind;
use cuda_kernel_objects::nvjitlink::{LinkInput, LinkOutput, NvJitLink};

use crate::code::link_options::LinkOptions;
use crate::code::module::RawModule;
use crate::code::object_code::ObjectCode;
use crate::device::gpu::Gpu;
use crate::error::Error;

/// Where nvJitLink is looked for when no file is given: the system loader's search (the
/// `LD_LIBRARY_PATH`, `ldconfig`), then the toolkit's usual places.
const CANDIDATES: &[&str] = &[
    "libnvJitLink.so.13",
    "/usr/local/cuda/lib64/libnvJitLink.so.13",
    "/usr/local/cuda/targets/x86_64-linux/lib/libnvJitLink.so.13",
    "/usr/local/cuda/targets/sbsa-linux/lib/libnvJitLink.so.13",
];

/// A finished link: the cubin (cacheable: load it later with [`ObjectCode::load`]) and what
/// the linker reported.
#[derive(Clone, Debug)]
pub struct Linked {
    /// The linked cubin, named after the first input.
    pub code: ObjectCode,
    /// nvJitLink's info log (register use with `verbose`), possibly empty.
    pub info_log: String,
}

/// Links compiled code at run time.
///
/// ```no_run
/// use cuda_kernel_runtime::{Gpu, Linker, ObjectCode};
/// let gpu = Gpu::new(0)?;
/// let (module, _linked) = Linker::new()
///     .input(ObjectCode::from_file("kernel.ltoir")?)
///     .input(ObjectCode::from_file("poly.ltoir")?)
///     .link(&gpu)?;
/// let apply = module.kernel("apply_poly")?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Linker {
    inputs: Vec<ObjectCode>,
    options: LinkOptions,
    library: Option<PathBuf>,
    driver: bool,
}

impl Linker {
    /// A linker with no inputs and nvJitLink's defaults.
    pub fn new() -> Linker {
        Linker::default()
    }

    /// Adds one input: code of any kind ([`CodeKind`]).
    pub fn input(mut self, code: ObjectCode) -> Linker {
        self.inputs.push(code);
        self
    }

    /// Links with `options`.
    pub fn options(mut self, options: LinkOptions) -> Linker {
        self.options = options;
        self
    }

    /// Uses the nvJitLink library at `path` instead of looking for it.
    pub fn nvjitlink(mut self, path: impl Into<PathBuf>) -> Linker {
        self.library = Some(path.into());
        self
    }

    /// Links with the driver's own linker (`cuLinkCreate` …) instead of nvJitLink: no LTO-IR,
    /// and only in a GPU's context ([`link`](Self::link)). [`link`](Self::link) takes this
    /// path by itself when nvJitLink is not installed and no input is LTO-IR.
    pub fn driver_linker(mut self, yes: bool) -> Linker {
        self.driver = yes;
        self
    }

    /// Links the inputs into a cubin for `arch` (`sm_90`), without a GPU.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Linker, ObjectCode};
    /// let linked = Linker::new().input(ObjectCode::from_file("k.ltoir")?).link_for("sm_90")?;
    /// std::fs::write("k.sm_90.cubin", linked.code.bytes()).unwrap();
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn link_for(&self, arch: &str) -> Result<Linked, Error> {
        if self.inputs.is_empty() {
            return Err(Error::Link {
                arch: arch.to_owned(),
                problem: "nothing to link: add at least one input".into(),
                log: String::new(),
            });
        }
        let jit = self.open()?;
        let lto = self.inputs.iter().any(|c| c.kind() == CodeKind::LtoIr);
        let args = self.options.to_args(arch, lto);
        let inputs: Vec<LinkInput<'_>> = self
            .inputs
            .iter()
            .map(|c| LinkInput {
                name: c.name(),
                kind: c.kind().into(),
                bytes: c.bytes(),
            })
            .collect();
        let linked = jit
            .link(&args, &inputs, LinkOutput::Cubin)
            .map_err(|f| link_error(arch, &jit, f))?;
        Ok(Linked {
            code: self.named(linked.image, arch),
            info_log: linked.info_log,
        })
    }

    /// Links the inputs for `gpu`'s architecture and loads the result there. Without
    /// nvJitLink, inputs that are not LTO-IR are linked by the driver's linker.
    pub fn link(&self, gpu: &Gpu) -> Result<(RawModule, Linked), Error> {
        let no_lto = self.inputs.iter().all(|c| c.kind() != CodeKind::LtoIr);
        let linked = match self.driver {
            true => self.link_in_driver(gpu)?,
            false => match self.link_for(&gpu.arch()) {
                Err(Error::NvJitLinkMissing { .. }) if no_lto && !self.inputs.is_empty() => {
                    self.link_in_driver(gpu)?
                }
                other => other?,
            },
        };
        let module = linked.code.load(gpu)?;
        Ok((module, linked))
    }

    /// The driver's linker, in `gpu`'s context.
    fn link_in_driver(&self, gpu: &Gpu) -> Result<Linked, Error> {
        let (cubin, info_log) = crate::code::culink::link(gpu, &self.inputs, &self.options)?;
        Ok(Linked {
            code: self.named(cubin, &gpu.arch()),
            info_log,
        })
    }

    /// The linked cubin, named after the first input, with the inputs' name expressions.
    fn named(&self, cubin: Vec<u8>, arch: &str) -> ObjectCode {
        let first = self.inputs.first().map_or("<linked>", ObjectCode::name);
        let mut code = ObjectCode::cubin(cubin).with_name(format!("{first} ({arch})"));
        for input in &self.inputs {
            for (expr, symbol) in input.symbols() {
                code = code.with_symbol(expr.clone(), symbol.clone());
            }
        }
        code
    }

    /// nvJitLink, from the file given or the first candidate that loads.
    fn open(&self) -> Result<Arc<NvJitLink>, Error> {
        let candidates: Vec<PathBuf> = match &self.library {
            Some(p) => vec![p.clone()],
            None => CANDIDATES.iter().map(PathBuf::from).collect(),
        };
        let mut tried = Vec::new();
        for c in &candidates {
            match NvJitLink::open(c) {
                Ok(jit) => return Ok(Arc::new(jit)),
                Err(e) => tried.push(e.to_string()),
            }
        }
        Err(Error::NvJitLinkMissing { tried })
    }
}

/// The error for a failed link: an undefined symbol named when the log names one.
fn link_error(
    arch: &str,
    jit: &NvJitLink,
    f: cuda_kernel_objects::nvjitlink::LinkFailure,
) -> Error {
    if let Some(symbol) = undefined_symbol(&f.log) {
        return Error::UndefinedSymbol { symbol, log: f.log };
    }
    if f.code == 14 {
        return Error::LinkerTooOld {
            linker: jit.version(),
            path: jit.path().to_owned(),
            log: f.log,
        };
    }
    Error::Link {
        arch: arch.to_owned(),
        problem: format!("{} failed: {}", f.call, f.code_name()),
        log: f.log,
    }
}

/// The symbol an nvJitLink error log says is undefined (`Undefined reference to 'poly'`, or
/// ptxas's `Unresolved extern function '_Z4polyf'` after an LTO link).
fn undefined_symbol(log: &str) -> Option<String> {
    log.lines().find_map(|line| {
        let lower = line.to_ascii_lowercase();
        let (at, len) = ["undefined reference to", "unresolved extern function"]
            .iter()
            .find_map(|p| lower.find(p).map(|at| (at, p.len())))?;
        let rest = &line[at + len..];
        let name = rest
            .trim()
            .trim_matches(|c| c == '\'' || c == '"' || c == '`');
        let name = name.split(['\'', '"', ' ']).next()?.trim();
        (!name.is_empty()).then(|| name.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undefined_symbols_are_read_from_the_log() {
        let log = "error   : Undefined reference to '_Z4polyf' in 'k.ltoir'\nERROR NVJITLINK_ERROR_PTX_COMPILE";
        assert_eq!(undefined_symbol(log).as_deref(), Some("_Z4polyf"));
        let ptxas = "ptxas fatal   : Unresolved extern function '_Z4polyf'\nERROR NVJITLINK_ERROR_PTX_COMPILE";
        assert_eq!(undefined_symbol(ptxas).as_deref(), Some("_Z4polyf"));
        assert_eq!(undefined_symbol("all fine"), None);
    }
}

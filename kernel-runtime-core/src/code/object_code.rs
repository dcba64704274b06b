//! [`ObjectCode`]: compiled CUDA code of any kind, with its name and a symbol mapping,
//! inspected without a GPU and loaded where the driver can load it.
//!
//! The kinds are NVIDIA's ([`CodeKind`]): a cubin, a fatbin and PTX load directly; LTO-IR,
//! relocatable cubins, host objects and libraries of them must be linked first. The bytes
//! are read by `cuda-kernel-objects`, the same reader the build verifies its images with.

use std::path::Path;
use std::sync::Arc;

pub use cuda_kernel_objects::CodeKind;
use cuda_kernel_objects::{Image, find_containers, parse, parse_cubin, parse_ptx};

use crate::error::Error;

/// Compiled CUDA code: its kind, its bytes, a name for messages, and C++ name expressions
/// mapped to the symbols they compiled to.
///
/// ```
/// use cuda_kernel_runtime::{CodeKind, ObjectCode};
/// let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\
///            .visible .entry _Z4axpyIfEvT_PKS0_PS0_i(.param .f32 a, .param .u64 x, .param .u64 y, .param .u32 n) { ret; }\n";
/// let code = ObjectCode::from_bytes(ptx)?
///     .with_name("axpy.ptx")
///     .with_symbol("axpy<float>", "_Z4axpyIfEvT_PKS0_PS0_i");
/// assert_eq!(code.kind(), CodeKind::Ptx);
/// assert_eq!(code.symbol("axpy<float>"), "_Z4axpyIfEvT_PKS0_PS0_i");
/// let k = &code.kernels()?[0];
/// assert_eq!((k.target.as_str(), k.params.as_slice()), ("sm_80", &[(0, 4), (8, 8), (16, 8), (24, 4)][..]));
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ObjectCode {
    kind: CodeKind,
    bytes: Arc<[u8]>,
    name: String,
    symbols: Vec<(String, String)>,
}

/// A kernel found in compiled code: the target of the image holding it, its symbol, and
/// its parameters as `(offset, size)` in bytes.
///
/// ```
/// let k = cuda_kernel_runtime::CodeKernel { target: "sm_90".into(), symbol: "saxpy".into(), params: vec![(0, 4)] };
/// assert_eq!(k.params.len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeKernel {
    /// `sm_90`, `compute_90`.
    pub target: String,
    /// The compiled symbol.
    pub symbol: String,
    /// Parameter offsets and sizes, in order.
    pub params: Vec<(u32, u32)>,
}

impl ObjectCode {
    /// Code of the kind its bytes say ([`CodeKind::detect`]).
    ///
    /// ```
    /// let err = cuda_kernel_runtime::ObjectCode::from_bytes(b"not code".to_vec()).unwrap_err();
    /// assert!(matches!(err, cuda_kernel_runtime::Error::UnknownCodeKind { .. }));
    /// ```
    pub fn from_bytes(bytes: impl Into<Vec<u8>>) -> Result<ObjectCode, Error> {
        Self::detected(bytes.into(), "<bytes>".to_owned())
    }

    /// Code read from a file, named after it.
    ///
    /// ```no_run
    /// let code = cuda_kernel_runtime::ObjectCode::from_file("kernels.ltoir")?;
    /// assert_eq!(code.kind(), cuda_kernel_runtime::CodeKind::LtoIr);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn from_file(path: impl AsRef<Path>) -> Result<ObjectCode, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::detected(bytes, path.display().to_string())
    }

    fn detected(bytes: Vec<u8>, name: String) -> Result<ObjectCode, Error> {
        let kind = CodeKind::detect(&bytes).ok_or_else(|| Error::UnknownCodeKind {
            name: name.clone(),
            head: bytes.iter().take(8).map(|b| format!("{b:02x}")).collect(),
        })?;
        Ok(Self::of_kind(kind, bytes).with_name(name))
    }

    /// Code declared to be of `kind`, whatever its bytes look like (the driver or the
    /// linker judges them when they are used).
    ///
    /// ```
    /// use cuda_kernel_runtime::{CodeKind, ObjectCode};
    /// let code = ObjectCode::of_kind(CodeKind::LtoIr, vec![0xed, 0x43, 0x4e, 0x7f]);
    /// assert_eq!(code.kind(), CodeKind::LtoIr);
    /// ```
    pub fn of_kind(kind: CodeKind, bytes: impl Into<Vec<u8>>) -> ObjectCode {
        ObjectCode {
            kind,
            bytes: bytes.into().into(),
            name: format!("<{kind}>"),
            symbols: Vec::new(),
        }
    }

    /// A cubin (`nvcc -cubin`, relocatable or not).
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::ObjectCode::cubin(vec![]).kind(), cuda_kernel_runtime::CodeKind::Cubin);
    /// ```
    pub fn cubin(bytes: impl Into<Vec<u8>>) -> ObjectCode {
        Self::of_kind(CodeKind::Cubin, bytes)
    }

    /// A fatbin (`nvcc -fatbin`).
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::ObjectCode::fatbin(vec![]).kind(), cuda_kernel_runtime::CodeKind::Fatbin);
    /// ```
    pub fn fatbin(bytes: impl Into<Vec<u8>>) -> ObjectCode {
        Self::of_kind(CodeKind::Fatbin, bytes)
    }

    /// PTX text.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::ObjectCode::ptx(".version 8.0").kind(), cuda_kernel_runtime::CodeKind::Ptx);
    /// ```
    pub fn ptx(text: impl Into<String>) -> ObjectCode {
        Self::of_kind(CodeKind::Ptx, text.into().into_bytes())
    }

    /// LTO-IR (`nvcc -dlto -ltoir`).
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::ObjectCode::lto_ir(vec![]).kind(), cuda_kernel_runtime::CodeKind::LtoIr);
    /// ```
    pub fn lto_ir(bytes: impl Into<Vec<u8>>) -> ObjectCode {
        Self::of_kind(CodeKind::LtoIr, bytes)
    }

    /// A host object holding device code (`nvcc -dc`).
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::ObjectCode::object(vec![]).kind(), cuda_kernel_runtime::CodeKind::Object);
    /// ```
    pub fn object(bytes: impl Into<Vec<u8>>) -> ObjectCode {
        Self::of_kind(CodeKind::Object, bytes)
    }

    /// An archive of host objects holding device code (`.a`).
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::ObjectCode::library(vec![]).kind(), cuda_kernel_runtime::CodeKind::Library);
    /// ```
    pub fn library(bytes: impl Into<Vec<u8>>) -> ObjectCode {
        Self::of_kind(CodeKind::Library, bytes)
    }

    /// The same code under `name` (used in messages and as the loaded module's name).
    ///
    /// ```
    /// let code = cuda_kernel_runtime::ObjectCode::ptx("").with_name("mine.ptx");
    /// assert_eq!(code.name(), "mine.ptx");
    /// ```
    pub fn with_name(mut self, name: impl Into<String>) -> ObjectCode {
        self.name = name.into();
        self
    }

    /// The same code with the C++ name expression `expr` (`"axpy<float>"`) standing for the
    /// compiled `symbol` (`_Z4axpyIfEvT_PKS0_PS0_i`): [`RawModule::kernel`](crate::RawModule::kernel) accepts
    /// either.
    ///
    /// ```
    /// let code = cuda_kernel_runtime::ObjectCode::ptx("").with_symbol("k<int>", "_Z1kIiEvv");
    /// assert_eq!(code.symbol("k<int>"), "_Z1kIiEvv");
    /// assert_eq!(code.symbol("other"), "other");
    /// ```
    pub fn with_symbol(mut self, expr: impl Into<String>, symbol: impl Into<String>) -> ObjectCode {
        let expr = expr.into();
        self.symbols.retain(|(e, _)| *e != expr);
        self.symbols.push((expr, symbol.into()));
        self
    }

    /// The kind of code.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::ObjectCode::ptx("").kind().name(), "ptx");
    /// ```
    pub fn kind(&self) -> CodeKind {
        self.kind
    }

    /// The code's bytes.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::ObjectCode::ptx("x").bytes(), b"x");
    /// ```
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The code's name (its file, `<bytes>`, or the name given).
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::ObjectCode::ptx("").name(), "<ptx>");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The symbol `expr` maps to, or `expr` itself when it maps to none.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::ObjectCode::ptx("").symbol("saxpy"), "saxpy");
    /// ```
    pub fn symbol<'a>(&'a self, expr: &'a str) -> &'a str {
        self.symbols
            .iter()
            .find(|(e, _)| e == expr)
            .map_or(expr, |(_, s)| s.as_str())
    }

    /// The name expressions given with [`with_symbol`](Self::with_symbol), and their symbols.
    ///
    /// ```
    /// let code = cuda_kernel_runtime::ObjectCode::ptx("").with_symbol("k<int>", "_Z1kIiEvv");
    /// assert_eq!(code.symbols().len(), 1);
    /// ```
    pub fn symbols(&self) -> &[(String, String)] {
        &self.symbols
    }

    /// The targets the code holds images for (`sm_90`, `compute_90`, `lto_90`), read without a
    /// GPU; empty for LTO-IR on its own, whose target its linker chooses.
    ///
    /// ```
    /// let ptx = cuda_kernel_runtime::ObjectCode::ptx(".version 8.0\n.target sm_80\n.address_size 64\n");
    /// assert_eq!(ptx.targets()?, ["sm_80"]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn targets(&self) -> Result<Vec<String>, Error> {
        let mut out: Vec<String> = Vec::new();
        self.walk(&mut |target, _| {
            if !out.contains(&target.to_owned()) {
                out.push(target.to_owned());
            }
        })?;
        Ok(out)
    }

    /// Every kernel of every image the code holds, with its parameter layout, read without a GPU
    /// (LTO-IR carries no parameter records: it lists none).
    ///
    /// ```
    /// let ptx = cuda_kernel_runtime::ObjectCode::ptx(".version 8.0\n.target sm_80\n.address_size 64\n\
    ///     .visible .entry k(.param .u64 p) { ret; }\n");
    /// assert_eq!(ptx.kernels()?[0].symbol, "k");
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn kernels(&self) -> Result<Vec<CodeKernel>, Error> {
        let mut out = Vec::new();
        self.walk(&mut |target, image| {
            let Some(image) = image else { return };
            for k in image.kernels() {
                let mut slots = k.params.clone();
                slots.sort_by_key(|s| s.ordinal);
                out.push(CodeKernel {
                    target: target.to_owned(),
                    symbol: k.symbol.clone(),
                    params: slots.iter().map(|s| (s.offset, s.size)).collect(),
                });
            }
        })?;
        Ok(out)
    }

    /// Calls `f` with each image's target and, where it can be read, the image.
    fn walk(&self, f: &mut dyn FnMut(&str, Option<&Image>)) -> Result<(), Error> {
        let bad = |reason: String| Error::UnreadableCode {
            name: self.name.clone(),
            reason,
        };
        match self.kind {
            CodeKind::Cubin => {
                let cubin = parse_cubin(&self.bytes).map_err(|e| bad(e.to_string()))?;
                let target = format!("sm_{}", cubin.sm);
                f(&target, Some(&Image::Cubin(cubin)));
            }
            CodeKind::Ptx => {
                let text = std::str::from_utf8(&self.bytes)
                    .map_err(|e| bad(format!("PTX is not UTF-8: {e}")))?;
                let ptx = parse_ptx(text.trim_end_matches('\0')).map_err(|e| bad(e.to_string()))?;
                let target = ptx.target.clone();
                f(&target, Some(&Image::Ptx(ptx)));
            }
            CodeKind::LtoIr => {}
            CodeKind::Fatbin | CodeKind::Object | CodeKind::Library => {
                let containers = match self.kind {
                    CodeKind::Fatbin => vec![(0, self.bytes.len())],
                    _ => find_containers(&self.bytes),
                };
                for (at, len) in containers {
                    let fatbin =
                        parse(&self.bytes[at..at + len]).map_err(|e| bad(e.to_string()))?;
                    for entry in &fatbin.entries {
                        // LTO-IR entries have no parameter records to read.
                        f(&entry.target(), entry.image().ok().as_ref());
                    }
                }
            }
        }
        Ok(())
    }

    /// `Ok` for the kinds the driver loads; [`Error::NeedsLinking`] for the others.
    pub(crate) fn check_loadable(&self) -> Result<(), Error> {
        let relocatable = cuda_kernel_objects::is_relocatable_cubin(&self.bytes);
        if !self.kind.is_loadable() || relocatable {
            return Err(Error::NeedsLinking {
                name: self.name.clone(),
                kind: self.kind,
            });
        }
        Ok(())
    }
}

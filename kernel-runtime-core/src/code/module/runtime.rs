//! Generated modules compiled at run time: the carried source goes through NVRTC for the
//! GPU's exact architecture (through the disk cache), and the compiled parameter layouts are
//! checked against the declarations the stubs were generated from before anything launches.

use super::spec::{KernelSpec, ModuleSpec, SourceSpec};
use super::{KernelRequest, ModuleInner, Provenance, load};
use crate::code::nvrtc::Program;
use crate::code::object_code::ObjectCode;
use crate::device::gpu::Gpu;
use crate::error::Error;

/// Defines and options for one variant of a module compiled at run time (generated modules
/// name it `Options`).
///
/// ```
/// let opts = cuda_kernel_runtime::CompileOptions { defines: &[("TILE", "32")], ..Default::default() };
/// assert_eq!(opts.variant(), "TILE=32");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CompileOptions<'a> {
    /// `(name, value)` definitions, added to (and replacing those of the same name in) the
    /// module's own; an empty value defines the name as `1`.
    pub defines: &'a [(&'a str, &'a str)],
    /// More NVRTC options.
    pub options: &'a [&'a str],
}

impl CompileOptions<'_> {
    /// The variant as text, for messages: `TILE=32 FAST --use_fast_math`.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::CompileOptions::default().variant(), "");
    /// ```
    pub fn variant(&self) -> String {
        let defines = self.defines.iter().map(|(n, v)| match v.is_empty() {
            true => (*n).to_owned(),
            false => format!("{n}={v}"),
        });
        defines
            .chain(self.options.iter().map(|o| (*o).to_owned()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The per-context cache key of this variant (never 0 or 1, which other loads use).
    pub(crate) fn key(&self) -> u64 {
        let mut h = blake3::Hasher::new();
        for (n, v) in self.defines {
            h.update(n.as_bytes())
                .update(b"=")
                .update(v.as_bytes())
                .update(b"\0");
        }
        h.update(b"\x01");
        for o in self.options {
            h.update(o.as_bytes()).update(b"\0");
        }
        let bytes: [u8; 8] = h.finalize().as_bytes()[..8].try_into().unwrap_or_default();
        u64::from_le_bytes(bytes) | (1 << 63)
    }
}

/// Compiles `source` for `gpu` with `opts`, checks it against `spec`, and loads it.
pub(crate) fn compile_and_load(
    gpu: &Gpu,
    spec: &'static ModuleSpec,
    source: &'static SourceSpec,
    opts: &CompileOptions<'_>,
) -> Result<ModuleInner, Error> {
    let code = compile_checked(spec, source, opts, &gpu.arch())?;
    let symbols: Vec<&str> = spec.kernels.iter().map(|k| symbol_of(k, &code)).collect();
    let requests: Vec<KernelRequest<'_>> = spec
        .kernels
        .iter()
        .zip(&symbols)
        .map(|(k, symbol)| KernelRequest {
            name: k.name,
            symbol,
            launch_bounds: k.max_threads,
            cluster_dims: k.cluster_dims,
            available: k.available,
            unit: None,
        })
        .collect();
    let from = Provenance {
        module: spec.name,
        archs: None,
        toolkit: None,
    };
    let mut inner = load(gpu, &[code.bytes()], &requests, &from)?;
    inner.symbols = code.symbols().to_vec();
    Ok(inner)
}

/// Compiles `source` for `target` with `opts` (through the disk cache) and checks every
/// declared kernel's parameter layout in the result.
pub(crate) fn compile_checked(
    spec: &ModuleSpec,
    source: &SourceSpec,
    opts: &CompileOptions<'_>,
    target: &str,
) -> Result<ObjectCode, Error> {
    let mut p = program(source, opts);
    // C++ kernels whose symbol the build could not know: NVRTC names them.
    for k in spec.kernels.iter().filter(|k| k.symbol.is_empty()) {
        p = p.name_expression(k.name);
    }
    let code = p.compile(target)?;
    let mut variant = target.to_owned();
    if !opts.variant().is_empty() {
        variant = format!("{variant}, {}", opts.variant());
    }
    verify(spec, &code, &variant)?;
    Ok(code)
}

/// The compiled symbol of `k`: the build's, or the one NVRTC gave its name expression.
fn symbol_of<'a>(k: &'a KernelSpec, code: &'a ObjectCode) -> &'a str {
    if k.symbol.is_empty() {
        code.symbol(k.name)
    } else {
        k.symbol
    }
}

/// The NVRTC program of `source` with `opts` applied.
fn program(source: &SourceSpec, opts: &CompileOptions<'_>) -> Program {
    let mut p = Program::new(source.text).name(source.name);
    for (name, text) in source.headers {
        p = p.header(*name, *text);
    }
    let overridden = |name: &str| opts.defines.iter().any(|(n, _)| *n == name);
    for (name, value) in source.defines.iter().filter(|(n, _)| !overridden(n)) {
        p = p.define(*name, value);
    }
    for (name, value) in opts.defines {
        p = p.define(*name, value);
    }
    for o in source.options.iter().chain(opts.options) {
        p = p.option(*o);
    }
    p
}

/// Every declared kernel is in `code` with the parameter layout its stub passes.
fn verify(spec: &ModuleSpec, code: &ObjectCode, variant: &str) -> Result<(), Error> {
    let compiled = code.kernels()?;
    for k in spec.kernels {
        let symbol = symbol_of(k, code);
        let Some(found) = compiled.iter().find(|c| c.symbol == symbol) else {
            if k.available.is_some() {
                // Declared for some targets only: the load records it as absent.
                continue;
            }
            return Err(Error::KernelNotFound {
                module: spec.name.to_owned(),
                kernel: k.name.to_owned(),
                symbol: symbol.to_owned(),
            });
        };
        let declared: Vec<(u32, u32)> = k.params.iter().map(|p| (p.offset, p.size)).collect();
        // Sizes and alignments: an over-aligned parameter sits where the target puts it.
        let predicted: Vec<(u64, u64)> = k
            .params
            .iter()
            .map(|p| (u64::from(p.size), u64::from(p.align.max(1))))
            .collect();
        let compiled: Vec<(u64, u64)> = found
            .params
            .iter()
            .map(|&(o, s)| (u64::from(o), u64::from(s)))
            .collect();
        if declared != found.params
            && !cuda_kernel_objects::param_layout_agrees(&predicted, &compiled)
        {
            return Err(Error::LayoutMismatch {
                module: spec.name.to_owned(),
                kernel: k.name.to_owned(),
                variant: variant.to_owned(),
                declared: declared.into(),
                compiled: found.params.clone().into(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_have_distinct_keys_and_texts() {
        let a = CompileOptions {
            defines: &[("TILE", "16")],
            options: &[],
        };
        let b = CompileOptions {
            defines: &[("TILE", "32")],
            options: &[],
        };
        let c = CompileOptions {
            defines: &[],
            options: &["-DTILE=16"],
        };
        assert_ne!(a.key(), b.key());
        assert_ne!(a.key(), c.key());
        assert!(a.key() > 1 && CompileOptions::default().key() > 1);
        assert_eq!(b.variant(), "TILE=32");
        assert_eq!(
            CompileOptions {
                defines: &[("FAST", "")],
                options: &["--use_fast_math"]
            }
            .variant(),
            "FAST --use_fast_math"
        );
    }
}

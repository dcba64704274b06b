//! The descriptions the generators read (a `Module` of `Kernel`s: `Elementwise`, `Reduction`,
//! `Scan`, each with its `Param`s), what a generated module reports (`Generated`, one
//! `KernelInfo` per kernel) and the mistakes found in a description (`GenerateError`), with
//! the checks every kind of kernel shares: its parameters' names and the names its
//! expressions may use.

use std::fmt;

use crate::dtype::Dtype;
use crate::expr;
use crate::text::Region;

/// How a kernel parameter is passed and used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// A value, the same for every element (broadcast).
    Scalar,
    /// A slice the kernel reads (`&[T]`, `const T*`).
    In,
    /// A slice the kernel writes and may read (`&mut [T]`, `T*`).
    Out,
}

/// A parameter of a generated kernel.
///
/// ```
/// use cuda_kernel_generate::{Access, Dtype, Param};
/// let p = Param::new("x", Dtype::F32, Access::In);
/// assert_eq!(p.c_decl(), "const float* __restrict__ x");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    /// The name the expressions use.
    pub name: String,
    /// Element type.
    pub dtype: Dtype,
    /// How it is passed.
    pub access: Access,
}

impl Param {
    /// A parameter.
    ///
    /// ```
    /// let p = cuda_kernel_generate::Param::new("a", cuda_kernel_generate::Dtype::F64,
    ///     cuda_kernel_generate::Access::Scalar);
    /// assert_eq!(p.name, "a");
    /// ```
    pub fn new(name: impl Into<String>, dtype: Dtype, access: Access) -> Param {
        Param {
            name: name.into(),
            dtype,
            access,
        }
    }

    /// Its C declaration.
    ///
    /// ```
    /// use cuda_kernel_generate::{Access, Dtype, Param};
    /// assert_eq!(Param::new("y", Dtype::F16, Access::Out).c_decl(), "__half* __restrict__ y");
    /// ```
    pub fn c_decl(&self) -> String {
        let ty = self.dtype.c_name();
        match self.access {
            Access::Scalar => format!("{ty} {}", self.name),
            Access::In => format!("const {ty}* __restrict__ {}", self.name),
            Access::Out => format!("{ty}* __restrict__ {}", self.name),
        }
    }
}

/// A statement run for every index `i < n`.
///
/// The body may use the parameters, `i` (the index, a `const long long`) and `n` (the
/// element count); it may be several statements.
///
/// ```
/// use cuda_kernel_generate::{Access, Dtype, Elementwise, Param};
/// let relu = Elementwise {
///     name: "relu".into(),
///     label: "relu".into(),
///     params: vec![Param::new("x", Dtype::F32, Access::Out)],
///     body: "x[i] = fmaxf(x[i], 0.0f)".into(),
/// };
/// assert_eq!(relu.params.len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Elementwise {
    /// The kernel's C name (`extern "C"`).
    pub name: String,
    /// The name errors use (`axpy` for every instantiation of `axpy`).
    pub label: String,
    /// Parameters, in launch order; `n` follows them.
    pub params: Vec<Param>,
    /// The statement(s).
    pub body: String,
}

/// A reduction of a map expression with an operator.
///
/// Kernels `{name}_partial` (parameters, then the partials buffer, then `n`) and
/// `{name}_final` (partials, their count, the one-element output).
///
/// ```
/// use cuda_kernel_generate::{Access, Dtype, Param, Reduction};
/// let sum_sq = Reduction {
///     name: "sum_squares".into(),
///     label: "sum_squares".into(),
///     params: vec![Param::new("x", Dtype::F32, Access::In)],
///     output: Dtype::F32,
///     map: "x[i] * x[i]".into(),
///     reduce: "a + b".into(),
///     identity: "0".into(),
///     post: None,
/// };
/// assert_eq!(sum_sq.output, Dtype::F32);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reduction {
    /// Prefix of the kernels' C names.
    pub name: String,
    /// The name errors use.
    pub label: String,
    /// Inputs (`In`) and scalars; no outputs.
    pub params: Vec<Param>,
    /// The type of the accumulator and of the result.
    pub output: Dtype,
    /// The value each index contributes (an expression of the parameters and `i`).
    pub map: String,
    /// Combines `a` and `b`; associative and commutative.
    pub reduce: String,
    /// The operator's identity (the result for no elements, before `post`).
    pub identity: String,
    /// Applied to the reduced value `r` (`sqrt(r)`); none: `r`.
    pub post: Option<String>,
}

/// A prefix scan of one slice into another.
///
/// Kernel `{name}` takes the input, the output, the scratch words ([`crate::geometry::scan_scratch_words`],
/// the first [`crate::geometry::scan_zeroed_words`] of them zeroed before each launch) and `n`.
///
/// ```
/// use cuda_kernel_generate::{Dtype, Scan};
/// let cumsum = Scan {
///     name: "cumsum".into(),
///     label: "cumsum".into(),
///     dtype: Dtype::I32,
///     input: "x".into(),
///     output: "y".into(),
///     op: "a + b".into(),
///     identity: "0".into(),
///     exclusive: false,
/// };
/// assert!(!cumsum.exclusive);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scan {
    /// The kernel's C name.
    pub name: String,
    /// The name errors use.
    pub label: String,
    /// Element type of input and output.
    pub dtype: Dtype,
    /// Name of the input slice (for messages and signatures).
    pub input: String,
    /// Name of the output slice.
    pub output: String,
    /// Combines `a` (earlier) and `b` (later); associative.
    pub op: String,
    /// The operator's identity (the first output of an exclusive scan).
    pub identity: String,
    /// `y[k]` combines the elements before `k` (exclusive) or up to `k` (inclusive).
    pub exclusive: bool,
}

/// One generated kernel (or pair, for a reduction).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// See [`Elementwise`].
    Elementwise(Elementwise),
    /// See [`Reduction`].
    Reduction(Reduction),
    /// See [`Scan`].
    Scan(Scan),
}

impl Kernel {
    /// The name errors use.
    ///
    /// ```
    /// # use cuda_kernel_generate::*;
    /// let k = Kernel::Scan(Scan { name: "s_f32".into(), label: "s".into(), dtype: Dtype::F32,
    ///     input: "x".into(), output: "y".into(), op: "a + b".into(), identity: "0".into(),
    ///     exclusive: true });
    /// assert_eq!(k.label(), "s");
    /// ```
    pub fn label(&self) -> &str {
        match self {
            Kernel::Elementwise(k) => &k.label,
            Kernel::Reduction(k) => &k.label,
            Kernel::Scan(k) => &k.label,
        }
    }
}

/// Kernels compiled together, after an optional preamble of device code.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Module {
    /// Device functions, includes, constants the expressions may use.
    pub preamble: Option<String>,
    /// The kernels.
    pub kernels: Vec<Kernel>,
}

/// What [`Module::source`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The CUDA source of the whole module.
    pub source: String,
    /// One entry per kernel of the module, in order.
    pub kernels: Vec<KernelInfo>,
    /// Where each user text is in `source`.
    pub regions: Vec<Region>,
}

impl Generated {
    /// The kernel, part and line within the part of line `line` (1-based) of the source,
    /// when a user's text is there: how a compiler's `file(line)` is told back to the user.
    ///
    /// ```
    /// # use cuda_kernel_generate::*;
    /// let m = Module { preamble: None, kernels: vec![Kernel::Elementwise(Elementwise {
    ///     name: "k".into(), label: "scale".into(),
    ///     params: vec![Param::new("y", Dtype::F32, Access::Out)], body: "y[i] *= 2".into() })] };
    /// let g = m.source().unwrap();
    /// let line = g.source.lines().position(|l| l == "y[i] *= 2;").unwrap() + 1;
    /// assert_eq!(g.locate(line), Some(("scale", "body", 1)));
    /// assert_eq!(g.locate(1), None);
    /// ```
    pub fn locate(&self, line: usize) -> Option<(&str, &str, usize)> {
        self.regions
            .iter()
            .find(|r| (r.first..=r.last).contains(&line))
            .map(|r| (r.kernel.as_str(), r.part.as_str(), line - r.first + 1))
    }

    /// A compiler's log with every `file(line)` or `file:line` inside a user's text
    /// rewritten as `kernel: part, line k`; other lines unchanged.
    ///
    /// ```
    /// # use cuda_kernel_generate::*;
    /// # let m = Module { preamble: None, kernels: vec![Kernel::Elementwise(Elementwise {
    /// #     name: "k".into(), label: "scale".into(),
    /// #     params: vec![Param::new("y", Dtype::F32, Access::Out)], body: "y[i] *= z".into() })] };
    /// # let g = m.source().unwrap();
    /// let line = g.source.lines().position(|l| l == "y[i] *= z;").unwrap() + 1;
    /// let log = format!("k.cu({line}): error: identifier \"z\" is undefined");
    /// assert_eq!(g.explain(&log), "in the body of `scale`: error: identifier \"z\" is undefined");
    /// ```
    pub fn explain(&self, log: &str) -> String {
        log.lines()
            .map(|l| match self.locate_message(l) {
                Some((kernel, part, message)) => format!("in the {part} of `{kernel}`: {message}"),
                None => l.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// For one line of a compiler's log that points into a user's text: the kernel, the
    /// part and the message after the location.
    ///
    /// ```
    /// # use cuda_kernel_generate::*;
    /// # let m = Module { preamble: None, kernels: vec![] };
    /// let g = m.source().unwrap();
    /// assert_eq!(g.locate_message("k.cu(1): error: x"), None);
    /// ```
    pub fn locate_message<'a>(&'a self, line: &'a str) -> Option<(&'a str, &'a str, &'a str)> {
        // `file(12): message` or `file:12: message` / `file:12:3: message`.
        let (head, message) = line.split_once("): ").or_else(|| {
            let idx = line.find(": ")?;
            Some((&line[..idx], &line[idx + 2..]))
        })?;
        let number: String = if let Some((_, n)) = head.rsplit_once('(') {
            n.to_owned()
        } else {
            let mut parts = head.rsplit(':');
            let last = parts.next()?;
            match parts.next() {
                Some(prev) if prev.chars().all(|c| c.is_ascii_digit()) && !prev.is_empty() => {
                    prev.to_owned()
                }
                _ => last.to_owned(),
            }
        };
        let n: usize = number.trim().parse().ok()?;
        let (kernel, part, _) = self.locate(n)?;
        Some((kernel, part, message))
    }
}

/// What the launcher of one generated kernel needs to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// The C names of its entry points, in launch order.
    pub entry_points: Vec<String>,
    /// Elements per thread and loop step of the vector path (1: no vector path); the grid
    /// is [`crate::geometry::elementwise_blocks`] or [`crate::geometry::reduction_blocks`] of it.
    pub width: u32,
    /// Why the kernel may touch memory outside its slices (each holding `n` elements);
    /// `None`: it cannot, and its launcher may be a safe function.
    pub unsafe_reason: Option<String>,
}

/// A mistake in a user expression, found before compiling.
///
/// ```
/// # use cuda_kernel_generate::*;
/// let bad = Module { preamble: None, kernels: vec![Kernel::Elementwise(Elementwise {
///     name: "k".into(), label: "k".into(),
///     params: vec![Param::new("x", Dtype::F32, Access::In)],
///     body: "x[i] = 0".into() })] };
/// let errors = bad.source().unwrap_err();
/// assert!(errors[0].to_string().contains("`x` is an input"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerateError {
    /// The kernel's label.
    pub kernel: String,
    /// Which part: `body`, `map`, `reduce`, `identity`, `post`, `op`, `parameters`.
    pub part: &'static str,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "in the {} of `{}`: {}",
            self.part, self.kernel, self.message
        )
    }
}

impl std::error::Error for GenerateError {}

/// Names an elementwise kernel declares: the index and the element count.
pub(crate) const RESERVED_ELEMENTWISE: &[&str] = &["i", "n"];

/// Names a reduction or scan declares: also the operands and the reduced value.
pub(crate) const RESERVED_OPERATORS: &[&str] = &["i", "n", "a", "b", "r"];

/// Checks parameter names: C identifiers, distinct, not reserved, not `kg_`-prefixed.
pub(crate) fn check_params(
    label: &str,
    params: &[Param],
    reserved: &[&str],
    errors: &mut Vec<GenerateError>,
) {
    let mut seen = std::collections::BTreeSet::new();
    for p in params {
        let valid = p
            .name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        let message = if !valid {
            Some(format!("`{}` is not a C identifier", p.name))
        } else if reserved.contains(&p.name.as_str()) {
            let meaning = match p.name.as_str() {
                "i" => "the index",
                "n" => "the element count",
                "r" => "the reduced value",
                _ => "an operand of the operator",
            };
            Some(format!(
                "a parameter cannot be named `{}`: the expressions use it for {meaning}",
                p.name
            ))
        } else if p.name.starts_with("kg_") {
            Some(format!(
                "`{}`: names starting with `kg_` are the generated code's",
                p.name
            ))
        } else if !seen.insert(p.name.as_str()) {
            Some(format!("`{}` is declared twice", p.name))
        } else {
            None
        };
        if let Some(message) = message {
            errors.push(GenerateError {
                kernel: label.to_owned(),
                part: "parameters",
                message,
            });
        }
    }
}

/// The names an expression may use beside the slices: scalar parameters and `extra`.
pub(crate) fn scalar_names<'a>(params: &'a [Param], extra: &[&'a str]) -> Vec<&'a str> {
    params
        .iter()
        .filter(|p| p.access == Access::Scalar)
        .map(|p| p.name.as_str())
        .chain(extra.iter().copied())
        .collect()
}

/// The slice parameters with their access, for [`expr::read`].
pub(crate) fn slice_uses(params: &[Param]) -> Vec<(&str, expr::SliceUse)> {
    params
        .iter()
        .filter_map(|p| match p.access {
            Access::Scalar => None,
            Access::In => Some((p.name.as_str(), expr::SliceUse::Read)),
            Access::Out => Some((p.name.as_str(), expr::SliceUse::Write)),
        })
        .collect()
}

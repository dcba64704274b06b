//! [`Tune`]: a kernel to tune over declared variants, the `tune` item of `cuda_module!` as a
//! value `Build::tune` takes, one setter per key of the item.

use crate::model::request::TuneRequest;

/// A kernel to tune over declared variants (given to [`Build::tune`](crate::Build::tune)):
/// its variants, as every combination of the axes' values ([`values`](Tune::values)) or as
/// a list ([`variant`](Tune::variant)), and the rules of its launch shape. The same
/// declaration as `cuda_module!`'s `tune NAME { ... }` item, checked with the same words.
///
/// An axis named after one of the kernel's template parameters gives that parameter's
/// values; any other axis is a launch value the rules read. Every variant is compiled into
/// the module (one that the compiler refuses for a target is left out of that target's
/// image, with a warning) and the generated module gets `<kernel>_tuned(key, outputs,
/// args...)`, which launches the fastest for each key.
///
/// ```no_run
/// // build.rs
/// use cuda_kernel_build::{Build, Tune};
/// Build::new()
///     .file("kernels/sum.cu")
///     .tune(
///         Tune::kernel("block_sum")
///             .values("BLOCK", [128, 256, 512, 1024])
///             .values("ITEMS", [1, 2, 4, 8])
///             .block("BLOCK")
///             .grid("n.div_ceil(BLOCK * ITEMS)"),
///     )
///     .compile("sums");
/// ```
#[derive(Clone, Debug)]
pub struct Tune {
    pub(crate) req: TuneRequest,
}

impl Tune {
    /// The kernel `name` (a template, or a plain kernel with launch choices), as the source
    /// names it (`block_sum`, `ops::gemm`).
    ///
    /// ```
    /// let t = cuda_kernel_build::Tune::kernel("ops::gemm");
    /// ```
    pub fn kernel(name: &str) -> Tune {
        Tune {
            req: TuneRequest {
                kernel: name.to_owned(),
                ..TuneRequest::default()
            },
        }
    }

    /// An axis and its values: every combination of the axes' values is a variant (the last
    /// axis varying fastest). A value is an integer, `true`/`false`, or a type's name
    /// (`"float"`).
    ///
    /// ```
    /// let t = cuda_kernel_build::Tune::kernel("gemm").values("TILE", [32, 64]).values("T", ["float"]);
    /// ```
    pub fn values<V: std::fmt::Display>(
        mut self,
        axis: &str,
        values: impl IntoIterator<Item = V>,
    ) -> Tune {
        let values = values.into_iter().map(|v| v.to_string()).collect();
        self.req.axes.push((axis.to_owned(), values));
        self
    }

    /// One variant of an explicit list, `AXIS=VALUE` pairs separated by spaces or commas
    /// (`"BLOCK=128 ITEMS=4"`); every variant gives the same axes. Instead of
    /// [`values`](Tune::values).
    ///
    /// ```
    /// let t = cuda_kernel_build::Tune::kernel("sum").variant("BLOCK=128 ITEMS=4").variant("BLOCK=256 ITEMS=2");
    /// ```
    pub fn variant(mut self, pairs: &str) -> Tune {
        self.req.listed.push(pairs.to_owned());
        self
    }

    /// The block of each launch: an expression of the axes, the kernel's integer parameters
    /// and integers (`+ - * / %`, parentheses, `.div_ceil(..)`, `.min(..)`, `.max(..)`), or a
    /// tuple of up to three.
    ///
    /// ```
    /// let t = cuda_kernel_build::Tune::kernel("gemm").block("(TILE / 4, TILE / 4)");
    /// ```
    pub fn block(mut self, rule: &str) -> Tune {
        self.req.block = Some(rule.to_owned());
        self
    }

    /// The grid of each launch, written as [`block`](Tune::block) is
    /// (`"n.div_ceil(BLOCK * ITEMS)"`).
    ///
    /// ```
    /// let t = cuda_kernel_build::Tune::kernel("gemm").grid("(n.div_ceil(TILE), m.div_ceil(TILE))");
    /// ```
    pub fn grid(mut self, rule: &str) -> Tune {
        self.req.grid = Some(rule.to_owned());
        self
    }

    /// The dynamic shared memory of each launch in bytes, one expression (none by default).
    ///
    /// ```
    /// let t = cuda_kernel_build::Tune::kernel("sum").shared("BLOCK * 4");
    /// ```
    pub fn shared(mut self, rule: &str) -> Tune {
        self.req.shared = Some(rule.to_owned());
        self
    }
}

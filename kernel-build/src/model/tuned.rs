//! Kernels tuned over declared variants, as built: each variant's name, values and kernel,
//! the launch-shape rules as small stack programs, and what was left out for which target.

use cuda_kernel_objects::launch_rule::RuleOp;
use serde::{Deserialize, Serialize};

/// A kernel tuned over declared variants (`tune` in `cuda_module!`, `Build::tune`): what the
/// generated `<method>_tuned` entry point chooses from.
///
/// ```
/// use cuda_kernel_build::model::{TunedKernel, TunedRule, TunedVariant, RuleOp};
/// let t = TunedKernel {
///     name: "sums::block_sum".into(),
///     kernel: "block_sum".into(),
///     method: "block_sum".into(),
///     axes: vec!["BLOCK".into()],
///     variants: vec![TunedVariant {
///         name: "block128".into(), values: vec!["128".into()], ints: vec![128],
///         kernel: Some("block_sum<128>".into()), left_out: vec![],
///     }],
///     grid: vec![TunedRule { text: "n.div_ceil(BLOCK)".into(),
///         ops: vec![RuleOp::Arg(0), RuleOp::Axis(0), RuleOp::DivCeil] }],
///     block: vec![TunedRule { text: "BLOCK".into(), ops: vec![RuleOp::Axis(0)] }],
///     shared: None,
///     ints: vec!["n".into()],
/// };
/// assert_eq!(t.variants[0].kernel.as_deref(), Some("block_sum<128>"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TunedKernel {
    /// `module::method`: what `KERNEL_TUNE_PIN`, the tuning cache and the embedded table
    /// call it.
    pub name: String,
    /// The kernel (a template, or a plain kernel) as the declaration names it.
    pub kernel: String,
    /// The Rust name the generated entry point is made from (`<method>_tuned`).
    pub method: String,
    /// The axes, in the declaration's order: template parameters and launch choices.
    pub axes: Vec<String>,
    /// The variants, in the declaration's order.
    pub variants: Vec<TunedVariant>,
    /// The grid's dimensions (one to three), `x` first.
    pub grid: Vec<TunedRule>,
    /// The block's dimensions (one to three), `x` first.
    pub block: Vec<TunedRule>,
    /// The dynamic shared memory in bytes, when the declaration gives it.
    pub shared: Option<TunedRule>,
    /// The kernel's integer parameters the rules read, in the order [`RuleOp::Arg`] counts
    /// them.
    pub ints: Vec<String>,
}

/// One declared variant.
///
/// ```
/// let v = cuda_kernel_build::model::TunedVariant {
///     name: "threads256".into(), values: vec!["256".into()], ints: vec![256],
///     kernel: Some("scale".into()), left_out: vec![("compute_75".into(), "too much shared data".into())],
/// };
/// assert_eq!(v.left_out[0].0, "compute_75");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TunedVariant {
    /// Its name: each axis in lowercase followed by its value (`block128_items4`).
    pub name: String,
    /// Its value of each axis, as the declaration writes it.
    pub values: Vec<String>,
    /// Its value of each axis as an integer the rules read (0 for a type).
    pub ints: Vec<i64>,
    /// The name of the kernel it launches in the model (`block_sum<128, 4>`); `None` when it
    /// compiled for no target.
    pub kernel: Option<String>,
    /// The virtual architectures it is left out of (`compute_80`), each with the compiler's
    /// reason.
    pub left_out: Vec<(String, String)>,
}

/// A launch-shape rule: its text, and the stack program the runtime evaluates.
///
/// ```
/// use cuda_kernel_build::model::{RuleOp, TunedRule};
/// let r = TunedRule { text: "BLOCK * 2".into(), ops: vec![RuleOp::Axis(0), RuleOp::Const(2), RuleOp::Mul] };
/// assert_eq!(r.ops.len(), 3);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TunedRule {
    /// The rule as the declaration writes it.
    pub text: String,
    /// Its program, in postfix order.
    pub ops: Vec<RuleOp>,
}

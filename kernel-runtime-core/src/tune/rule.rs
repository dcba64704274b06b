//! The launch shape of a declared variant: the `block`, `grid` and `shared` rules of its
//! declaration, which the build checks and writes as small programs over the variant's
//! values and the call's integer arguments (`cuda_kernel_objects::launch_rule`, where the
//! program's steps and their evaluation are defined once for the build and the runtime),
//! evaluated here without allocating, every overflow, division by zero and dimension out of
//! range an error that names the rule.

pub use cuda_kernel_objects::launch_rule::RuleOp;
use cuda_kernel_objects::launch_rule::eval;

use crate::launch::config::Launch;

/// The launch shape of a tuned kernel's variants: one rule per grid and block dimension
/// (one to three each) and one for the dynamic shared memory (empty: none), with the text
/// each was written as, for messages (not public API).
#[derive(Debug)]
pub struct Shape {
    /// The grid's dimensions, `x` first.
    pub grid: &'static [&'static [RuleOp]],
    /// The block's dimensions, `x` first.
    pub block: &'static [&'static [RuleOp]],
    /// The dynamic shared memory in bytes; empty for none.
    pub shared: &'static [RuleOp],
    /// `grid`, `block` and `shared` as the declaration wrote them.
    pub text: [&'static str; 3],
}

/// The launch configuration `shape` gives a variant with values `axes` for a call whose
/// integer arguments are `args`; an error names the rule and what it gave.
pub(crate) fn launch(shape: &Shape, axes: &[i64], args: &[i64]) -> Result<Launch, String> {
    let dims = |rules: &[&[RuleOp]], text: &str, what: &str| -> Result<(u32, u32, u32), String> {
        let mut d = [1u32; 3];
        for (slot, rule) in d.iter_mut().zip(rules) {
            let v = eval(rule, axes, args).map_err(|e| format!("the {what} rule `{text}` {e}"))?;
            *slot = u32::try_from(v).ok().filter(|v| *v > 0).ok_or_else(|| {
                format!("the {what} rule `{text}` gives {v}, not a dimension from 1 to 2^32 - 1")
            })?;
        }
        Ok((d[0], d[1], d[2]))
    };
    let grid = dims(shape.grid, shape.text[0], "grid")?;
    let block = dims(shape.block, shape.text[1], "block")?;
    let cfg = Launch::new(grid, block);
    if shape.shared.is_empty() {
        return Ok(cfg);
    }
    let text = shape.text[2];
    let bytes =
        eval(shape.shared, axes, args).map_err(|e| format!("the shared rule `{text}` {e}"))?;
    let bytes = u32::try_from(bytes)
        .map_err(|_| format!("the shared rule `{text}` gives {bytes}, not a byte count"))?;
    Ok(cfg.with_shared_mem(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use RuleOp::*;

    #[test]
    fn a_shape_names_the_rule_that_gives_no_dimension() {
        static SHAPE: Shape = Shape {
            grid: &[&[Arg(0), Axis(0), DivCeil]],
            block: &[&[Axis(0)], &[Const(2)]],
            shared: &[Axis(0), Const(4), Mul],
            text: ["n.div_ceil(B)", "(B, 2)", "B * 4"],
        };
        let cfg = launch(&SHAPE, &[128], &[1000]).unwrap();
        assert_eq!((cfg.num_blocks(), cfg.threads_per_block()), (8, 256));
        let err = launch(&SHAPE, &[128], &[0]).unwrap_err();
        assert!(err.contains("grid rule `n.div_ceil(B)` gives 0"), "{err}");
    }
}

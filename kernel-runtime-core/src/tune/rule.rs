//! The launch shape of a declared variant: the `block`, `grid` and `shared` rules of its
//! declaration, which the build checks and writes as small programs over the variant's
//! values and the call's integer arguments, evaluated here without allocating, every
//! overflow, division by zero and dimension out of range an error that names the rule.

use crate::launch::config::Launch;

/// One step of a rule, a stack program written by the build (not public API).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleOp {
    /// Pushes a constant.
    Const(i64),
    /// Pushes the variant's value of the declaration's axis number `n`.
    Axis(u8),
    /// Pushes the call's integer argument number `n` (in the order the build lists them).
    Arg(u8),
    /// Pops `b`, `a`; pushes `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`, rounded toward zero.
    Div,
    /// `a % b`.
    Rem,
    /// `a.div_ceil(b)`: `a / b` rounded up (for `a >= 0`, `b > 0`).
    DivCeil,
    /// `a.min(b)`.
    Min,
    /// `a.max(b)`.
    Max,
    /// Pops `a`; pushes `-a`.
    Neg,
}

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

/// The most values a rule's stack holds (the build refuses deeper rules).
pub const DEPTH: usize = 16;

/// Evaluates `ops` with the variant's `axes` and the call's `args`.
pub(crate) fn eval(ops: &[RuleOp], axes: &[i64], args: &[i64]) -> Result<i64, String> {
    let mut stack = [0i64; DEPTH];
    let mut top = 0usize;
    for op in ops {
        let value = match *op {
            RuleOp::Const(v) => v,
            RuleOp::Axis(i) => *axes
                .get(usize::from(i))
                .ok_or_else(|| format!("no value of axis {i}"))?,
            RuleOp::Arg(i) => *args
                .get(usize::from(i))
                .ok_or_else(|| format!("no argument {i}"))?,
            RuleOp::Neg => {
                let a = pop(&stack, &mut top)?;
                a.checked_neg().ok_or("overflows")?
            }
            binary => {
                let b = pop(&stack, &mut top)?;
                let a = pop(&stack, &mut top)?;
                apply(binary, a, b)?
            }
        };
        *stack.get_mut(top).ok_or("is too deep")? = value;
        top += 1;
    }
    match top {
        1 => Ok(stack[0]),
        _ => Err("is not one value".to_owned()),
    }
}

fn pop(stack: &[i64; DEPTH], top: &mut usize) -> Result<i64, String> {
    *top = top.checked_sub(1).ok_or("lacks an operand")?;
    Ok(stack[*top])
}

fn apply(op: RuleOp, a: i64, b: i64) -> Result<i64, String> {
    let zero = || format!("divides {a} by zero");
    let value = match op {
        RuleOp::Add => a.checked_add(b),
        RuleOp::Sub => a.checked_sub(b),
        RuleOp::Mul => a.checked_mul(b),
        RuleOp::Div if b == 0 => return Err(zero()),
        RuleOp::Div => a.checked_div(b),
        RuleOp::Rem if b == 0 => return Err(zero()),
        RuleOp::Rem => a.checked_rem(b),
        RuleOp::DivCeil if b == 0 => return Err(zero()),
        RuleOp::DivCeil => a.checked_div(b).map(|q| {
            let r = a % b;
            if r != 0 && (r > 0) == (b > 0) {
                q + 1
            } else {
                q
            }
        }),
        RuleOp::Min => Some(a.min(b)),
        RuleOp::Max => Some(a.max(b)),
        RuleOp::Const(_) | RuleOp::Axis(_) | RuleOp::Arg(_) | RuleOp::Neg => None,
    };
    value.ok_or_else(|| format!("overflows ({a}, {b})"))
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
    fn rules_evaluate_on_a_stack_with_checked_arithmetic() {
        // n.div_ceil(BLOCK * ITEMS) with n = 1000, BLOCK = 128, ITEMS = 4
        let ops = [Arg(0), Axis(0), Axis(1), Mul, DivCeil];
        assert_eq!(eval(&ops, &[128, 4], &[1000]), Ok(2));
        assert_eq!(eval(&ops, &[128, 4], &[1024]), Ok(2));
        assert_eq!(eval(&ops, &[128, 4], &[1025]), Ok(3));
        assert_eq!(eval(&[Const(7), Const(2), Div], &[], &[]), Ok(3));
        assert_eq!(eval(&[Const(-7), Const(2), DivCeil], &[], &[]), Ok(-3));
        assert_eq!(eval(&[Const(7), Const(3), Rem, Neg], &[], &[]), Ok(-1));
        assert_eq!(
            eval(&[Const(7), Const(3), Min, Const(5), Max], &[], &[]),
            Ok(5)
        );
        assert!(
            eval(&[Const(1), Const(0), Div], &[], &[])
                .unwrap_err()
                .contains("zero")
        );
        assert!(eval(&[Const(i64::MAX), Const(1), Add], &[], &[]).is_err());
        assert!(eval(&[Add], &[], &[]).is_err());
        assert!(eval(&[Const(1), Const(2)], &[], &[]).is_err());
        assert!(eval(&[Axis(3)], &[1], &[]).is_err());
    }

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

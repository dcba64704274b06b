//! A tuned kernel's launch rules (`block`, `grid`, `shared` of a declared variant) as small
//! stack programs over the variant's axis values and the call's integer arguments: the steps
//! ([`RuleOp`]), the deepest stack a program may need ([`DEPTH`]) and their evaluation with
//! checked arithmetic ([`eval`]). The build writes the programs (and refuses deeper ones);
//! the runtime evaluates them at each launch; both read this one definition.

/// One step of a rule's program: what the build writes (in the model and the generated code)
/// and the runtime evaluates ([`eval`]).
///
/// ```
/// use cuda_kernel_objects::launch_rule::{RuleOp, eval};
/// // BLOCK * 2 with BLOCK = 128
/// assert_eq!(eval(&[RuleOp::Axis(0), RuleOp::Const(2), RuleOp::Mul], &[128], &[]), Ok(256));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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

/// The most values a rule's stack holds: the build refuses deeper rules, and [`eval`] holds
/// this many without allocating.
///
/// ```
/// assert_eq!(cuda_kernel_objects::launch_rule::DEPTH, 16);
/// ```
pub const DEPTH: usize = 16;

/// Evaluates `ops` with the variant's `axes` and the call's `args`: the one value the program
/// leaves, or what went wrong, worded to follow the rule's text ("divides 7 by zero",
/// "overflows (a, b)", "lacks an operand", "is too deep", "is not one value").
///
/// ```
/// use cuda_kernel_objects::launch_rule::{RuleOp::*, eval};
/// // n.div_ceil(BLOCK) with n = 1000, BLOCK = 128
/// assert_eq!(eval(&[Arg(0), Axis(0), DivCeil], &[128], &[1000]), Ok(8));
/// assert_eq!(eval(&[Const(1), Const(0), Div], &[], &[]), Err("divides 1 by zero".into()));
/// ```
pub fn eval(ops: &[RuleOp], axes: &[i64], args: &[i64]) -> Result<i64, String> {
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
}

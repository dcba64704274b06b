//! A launch rule's text (`grid = "n.div_ceil(BLOCK * ITEMS)"`) read as an expression, and
//! written as the stack program the runtime evaluates once its names are resolved.

use quote::ToTokens;
use syn::{BinOp, Expr as SynExpr, Lit, UnOp};

use crate::model::RuleOp;
use cuda_kernel_objects::launch_rule::DEPTH;

/// A rule's expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Expr {
    Int(i64),
    Name(String),
    Neg(Box<Expr>),
    /// A binary operation or method (`Add` .. `Max`).
    Bin(RuleOp, Box<Expr>, Box<Expr>),
}

/// Reads `text`: one expression, or (`dims`) a tuple of up to three. The error says what
/// does not read (to follow "the rule `...`").
pub(crate) fn read(text: &str, dims: bool) -> Result<Vec<Expr>, String> {
    let parsed: SynExpr =
        syn::parse_str(text).map_err(|_| "does not read as an expression".to_owned())?;
    let parts: Vec<&SynExpr> = match &parsed {
        SynExpr::Tuple(t) if dims => t.elems.iter().collect(),
        SynExpr::Tuple(_) => return Err("is a tuple, where one value is expected".into()),
        other => vec![other],
    };
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!(
            "has {} dimensions, where one to three are expected",
            parts.len()
        ));
    }
    parts.into_iter().map(expr).collect()
}

fn expr(e: &SynExpr) -> Result<Expr, String> {
    let refused = |e: &dyn ToTokens| Err(format!("takes `{}`", e.to_token_stream()));
    match e {
        SynExpr::Paren(p) => expr(&p.expr),
        SynExpr::Group(g) => expr(&g.expr),
        SynExpr::Lit(l) => match &l.lit {
            Lit::Int(i) => i
                .base10_parse::<i64>()
                .map(Expr::Int)
                .map_err(|_| format!("takes `{i}`, which is no 64-bit integer")),
            other => refused(other),
        },
        SynExpr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
            Ok(Expr::Name(p.path.segments[0].ident.to_string()))
        }
        SynExpr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
            Ok(Expr::Neg(Box::new(expr(&u.expr)?)))
        }
        SynExpr::Binary(b) => {
            let op = match b.op {
                BinOp::Add(_) => RuleOp::Add,
                BinOp::Sub(_) => RuleOp::Sub,
                BinOp::Mul(_) => RuleOp::Mul,
                BinOp::Div(_) => RuleOp::Div,
                BinOp::Rem(_) => RuleOp::Rem,
                other => return refused(&other),
            };
            Ok(Expr::Bin(
                op,
                Box::new(expr(&b.left)?),
                Box::new(expr(&b.right)?),
            ))
        }
        SynExpr::MethodCall(m) if m.turbofish.is_none() && m.args.len() == 1 => {
            let op = match m.method.to_string().as_str() {
                "div_ceil" => RuleOp::DivCeil,
                "min" => RuleOp::Min,
                "max" => RuleOp::Max,
                _ => return refused(&m.method),
            };
            Ok(Expr::Bin(
                op,
                Box::new(expr(&m.receiver)?),
                Box::new(expr(&m.args[0])?),
            ))
        }
        other => refused(other),
    }
}

/// Every name `e` reads, in order of first reading.
pub(crate) fn names(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Int(_) => {}
        Expr::Name(n) => {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
        Expr::Neg(a) => names(a, out),
        Expr::Bin(_, a, b) => {
            names(a, out);
            names(b, out);
        }
    }
}

/// The program of `e`, each name the op `name` gives it (an axis or an argument); the error
/// names the first name it does not know (`Err(Ok(name))`) or says the program is too deep
/// (`Err(Err(why))`).
pub(crate) fn program(
    e: &Expr,
    name: &mut dyn FnMut(&str) -> Option<RuleOp>,
) -> Result<Vec<RuleOp>, Result<String, String>> {
    let mut ops = Vec::new();
    let depth = emit(e, name, &mut ops)?;
    if depth > DEPTH {
        return Err(Err(format!(
            "needs {depth} values at once, more than {DEPTH}"
        )));
    }
    Ok(ops)
}

/// Appends `e`'s program to `ops`; the most values it holds at once.
fn emit(
    e: &Expr,
    name: &mut dyn FnMut(&str) -> Option<RuleOp>,
    ops: &mut Vec<RuleOp>,
) -> Result<usize, Result<String, String>> {
    Ok(match e {
        Expr::Int(v) => {
            ops.push(RuleOp::Const(*v));
            1
        }
        Expr::Name(n) => {
            ops.push(name(n).ok_or_else(|| Ok(n.clone()))?);
            1
        }
        Expr::Neg(a) => {
            let d = emit(a, name, ops)?;
            ops.push(RuleOp::Neg);
            d
        }
        Expr::Bin(op, a, b) => {
            let da = emit(a, name, ops)?;
            let db = emit(b, name, ops)?;
            ops.push(*op);
            da.max(db + 1)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axes(n: &str) -> Option<RuleOp> {
        match n {
            "BLOCK" => Some(RuleOp::Axis(0)),
            "ITEMS" => Some(RuleOp::Axis(1)),
            "n" => Some(RuleOp::Arg(0)),
            _ => None,
        }
    }

    #[test]
    fn rules_read_as_programs_in_postfix_order() {
        let dims = read("n.div_ceil(BLOCK * ITEMS)", true).unwrap();
        assert_eq!(
            program(&dims[0], &mut axes).unwrap(),
            [
                RuleOp::Arg(0),
                RuleOp::Axis(0),
                RuleOp::Axis(1),
                RuleOp::Mul,
                RuleOp::DivCeil
            ]
        );
        let two = read("((n + 1) / 2, -BLOCK.max(4) % 3)", true).unwrap();
        assert_eq!(two.len(), 2);
        let mut seen = Vec::new();
        names(&two[1], &mut seen);
        assert_eq!(seen, ["BLOCK"]);
        assert_eq!(program(&two[0], &mut axes).unwrap().len(), 5);
    }

    #[test]
    fn what_a_rule_may_not_take_is_named() {
        assert_eq!(read("n as u32", false), Err("takes `n as u32`".into()));
        assert_eq!(read("f(n)", false), Err("takes `f (n)`".into()));
        assert_eq!(read("n.pow(2)", false), Err("takes `pow`".into()));
        assert!(read("(1, 2)", false).unwrap_err().contains("tuple"));
        assert!(
            read("(1, 2, 3, 4)", true)
                .unwrap_err()
                .contains("4 dimensions")
        );
        assert!(read("n <<", false).unwrap_err().contains("does not read"));
        assert!(read("n << 2", false).unwrap_err().contains("<<"));
        let e = read("m * 2", false).unwrap();
        assert_eq!(program(&e[0], &mut axes), Err(Ok("m".into())));
    }

    #[test]
    fn a_rule_too_deep_for_the_stack_is_refused() {
        let text = (0..20).fold("n".to_owned(), |t, _| format!("1 + ({t})"));
        let e = read(&text, false).unwrap();
        assert!(matches!(program(&e[0], &mut axes), Err(Err(_))));
    }
}

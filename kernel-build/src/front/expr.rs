//! Integer constant expressions: preprocessor conditions, array extents and
//! non-type template arguments.
//!
//! A small precedence-climbing evaluator over C operators (`|| && | ^ & == != < >
//! <= >= << >> + - * / %`, unary `! ~ - +`, parentheses)
//! with wrapping 64-bit arithmetic. Identifiers are resolved by the caller.

/// Evaluates `text`; identifiers and `defined X` go through `lookup(name, is_defined_query)`.
/// `None` when the text is not a valid expression (or divides by zero).
pub fn eval_pp(text: &str, lookup: &mut dyn FnMut(&str, bool) -> Option<i64>) -> Option<i64> {
    let toks = tokenize(text)?;
    let mut p = Eval {
        toks: &toks,
        pos: 0,
        lookup,
    };
    let v = p.binary(0)?;
    (p.pos == toks.len()).then_some(v)
}

/// Evaluates an expression with no identifiers other than `true`/`false`.
pub fn eval_const(text: &str) -> Option<i64> {
    eval_pp(text, &mut |name, _| match name {
        "true" => Some(1),
        "false" => Some(0),
        _ => None,
    })
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(i64),
    Ident(String),
    Op(&'static str),
}

const OPS: &[&str] = &[
    "||", "&&", "==", "!=", "<=", ">=", "<<", ">>", "|", "^", "&", "<", ">", "+", "-", "*", "/",
    "%", "!", "~", "(", ")",
];

fn tokenize(text: &str) -> Option<Vec<Tok>> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'\'') {
                i += 1;
            }
            out.push(Tok::Num(parse_int(&text[start..i])?));
        } else if c.is_ascii_alphabetic() || c == b'_' || text[i..].starts_with("::") {
            // A qualified name (`cfg::Mode::B`, `::N`) is one identifier.
            let start = i;
            while i < b.len() {
                if b[i].is_ascii_alphanumeric() || b[i] == b'_' {
                    i += 1;
                } else if text[i..].starts_with("::") {
                    i += 2;
                } else {
                    break;
                }
            }
            let name = text[start..i].trim_start_matches("::");
            if name.is_empty() || name.ends_with("::") {
                return None;
            }
            out.push(Tok::Ident(name.to_string()));
        } else {
            let op = OPS.iter().find(|op| b[i..].starts_with(op.as_bytes()))?;
            i += op.len();
            out.push(Tok::Op(op));
        }
    }
    Some(out)
}

/// Parses a C integer literal (decimal, hex, octal, binary; `u`/`l` suffixes; `'` separators).
pub fn parse_int(lit: &str) -> Option<i64> {
    let cleaned: String = lit.chars().filter(|c| *c != '\'').collect();
    let digits = cleaned.trim_end_matches(['u', 'U', 'l', 'L']);
    let (radix, body) = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, h)
    } else if let Some(bin) = digits
        .strip_prefix("0b")
        .or_else(|| digits.strip_prefix("0B"))
    {
        (2, bin)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    u64::from_str_radix(body, radix).ok().map(|v| v as i64)
}

struct Eval<'a, 'f> {
    toks: &'a [Tok],
    pos: usize,
    lookup: &'f mut dyn FnMut(&str, bool) -> Option<i64>,
}

fn precedence(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

impl Eval<'_, '_> {
    fn binary(&mut self, min: u8) -> Option<i64> {
        let mut lhs = self.unary()?;
        while let Some(Tok::Op(op)) = self.toks.get(self.pos) {
            let Some(prec) = precedence(op) else { break };
            if prec <= min {
                break;
            }
            self.pos += 1;
            let rhs = self.binary(prec)?;
            lhs = apply(op, lhs, rhs)?;
        }
        Some(lhs)
    }

    fn unary(&mut self) -> Option<i64> {
        let tok = self.toks.get(self.pos)?.clone();
        self.pos += 1;
        match tok {
            Tok::Num(v) => Some(v),
            Tok::Op("!") => Some(i64::from(self.unary()? == 0)),
            Tok::Op("~") => Some(!self.unary()?),
            Tok::Op("-") => Some(self.unary()?.wrapping_neg()),
            Tok::Op("+") => self.unary(),
            Tok::Op("(") => {
                let v = self.binary(0)?;
                (self.toks.get(self.pos) == Some(&Tok::Op(")"))).then(|| self.pos += 1)?;
                Some(v)
            }
            Tok::Ident(name) if name == "defined" => {
                let paren = self.toks.get(self.pos) == Some(&Tok::Op("("));
                self.pos += usize::from(paren);
                let Some(Tok::Ident(target)) = self.toks.get(self.pos).cloned() else {
                    return None;
                };
                self.pos += 1;
                if paren {
                    (self.toks.get(self.pos) == Some(&Tok::Op(")"))).then(|| self.pos += 1)?;
                }
                (self.lookup)(&target, true)
            }
            Tok::Ident(name) => (self.lookup)(&name, false),
            Tok::Op(_) => None,
        }
    }
}

fn apply(op: &str, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        "||" => i64::from(a != 0 || b != 0),
        "&&" => i64::from(a != 0 && b != 0),
        "|" => a | b,
        "^" => a ^ b,
        "&" => a & b,
        "==" => i64::from(a == b),
        "!=" => i64::from(a != b),
        "<" => i64::from(a < b),
        ">" => i64::from(a > b),
        "<=" => i64::from(a <= b),
        ">=" => i64::from(a >= b),
        "<<" => a.wrapping_shl(u32::try_from(b).ok()?),
        ">>" => a.wrapping_shr(u32::try_from(b).ok()?),
        "+" => a.wrapping_add(b),
        "-" => a.wrapping_sub(b),
        "*" => a.wrapping_mul(b),
        "/" => a.checked_div(b)?,
        "%" => a.checked_rem(b)?,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(eval_const("2 + 3 * 4"), Some(14));
        assert_eq!(eval_const("10 - 4 - 3"), Some(3));
        assert_eq!(eval_const("1 << 4 | 1"), Some(17));
        assert_eq!(eval_const("-1"), Some(-1));
        assert_eq!(eval_const("true + 1"), Some(2));
    }

    #[test]
    fn malformed_is_none() {
        for bad in ["", "(1", "1 2", "1 / 0", "defined(", "@", "1 << -1"] {
            assert_eq!(eval_const(bad), None, "{bad}");
        }
    }

    #[test]
    fn preprocessor_conditions_evaluate_with_defined_and_names() {
        assert_eq!(
            eval_pp("(1 + 2) * 4 >= 12 && !0", &mut |_, _| None),
            Some(1)
        );
        assert_eq!(
            eval_pp("defined(X) || N == 3", &mut |n, d| Some(if d {
                0
            } else if n == "N" {
                3
            } else {
                0
            })),
            Some(1)
        );
        assert_eq!(eval_pp("1 +", &mut |_, _| None), None);
        assert_eq!(
            eval_pp("::cfg::W * 2", &mut |n, _| (n == "cfg::W").then_some(8)),
            Some(16)
        );
    }

    #[test]
    fn constant_expressions_evaluate_without_names() {
        assert_eq!(eval_const("4 * 16"), Some(64));
        assert_eq!(eval_const("N"), None);
    }

    #[test]
    fn integer_literals_read_bases_suffixes_and_separators() {
        assert_eq!(parse_int("0x10u"), Some(16));
        assert_eq!(parse_int("010"), Some(8));
        assert_eq!(parse_int("1'000ULL"), Some(1000));
        assert_eq!(parse_int("1.5"), None);
    }
}

//! Reading a user's CUDA expression: tokens, the accesses it makes to each slice, the
//! mistakes found before nvcc sees it, and whether the kernel stays within its slices.
//!
//! The safety reading is an allowlist. A kernel is memory-safe (given slices of `n`
//! elements) when the expression touches each slice only as `name[i]`, never forms a
//! pointer (unary `&` or `*`, `->`, a pointer type, an index into anything else) and names
//! only what the generator can see: the parameters, `i`, `n`, locals it declares, C/CUDA
//! math functions and type names. Anything else (a function of the preamble, a macro) may
//! do what it likes, so the kernel is then `unsafe` to launch, with that reason.

use std::collections::BTreeSet;
use std::ops::Range;

/// A token and where it is in the text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub kind: Kind,
    pub text: String,
    pub at: Range<usize>,
}

/// Token kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Ident,
    Number,
    Literal,
    Punct,
}

/// Splits a C expression into tokens (comments dropped).
pub(crate) fn tokens(text: &str) -> Result<Vec<Token>, String> {
    const PUNCTS: [&str; 25] = [
        "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
        "*=", "/=", "%=", "&=", "|=", "^=", "::", "...", ".*", "->*",
    ];
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let c = bytes[at];
        let start = at;
        if c.is_ascii_whitespace() {
            at += 1;
            continue;
        }
        if text[at..].starts_with("//") {
            at = text[at..].find('\n').map_or(bytes.len(), |e| at + e);
            continue;
        }
        if text[at..].starts_with("/*") {
            at = match text[at + 2..].find("*/") {
                Some(e) => at + 2 + e + 2,
                None => return Err("a `/*` comment is not closed".into()),
            };
            continue;
        }
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
                at += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit()
            || (c == b'.' && bytes.get(at + 1).is_some_and(u8::is_ascii_digit))
        {
            while at < bytes.len() {
                let b = bytes[at];
                let exponent_sign = (b == b'+' || b == b'-')
                    && matches!(bytes[at - 1], b'e' | b'E' | b'p' | b'P')
                    && !text[start..at].starts_with("0x");
                if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || exponent_sign {
                    at += 1;
                } else {
                    break;
                }
            }
            Kind::Number
        } else if c == b'"' || c == b'\'' {
            at += 1;
            loop {
                match bytes.get(at) {
                    None | Some(b'\n') => {
                        return Err(format!(
                            "a {} literal is not closed",
                            if c == b'"' { "string" } else { "character" }
                        ));
                    }
                    Some(b'\\') => at += 2,
                    Some(&b) if b == c => {
                        at += 1;
                        break;
                    }
                    Some(_) => at += 1,
                }
            }
            Kind::Literal
        } else {
            let len = PUNCTS
                .iter()
                .filter(|p| text[at..].starts_with(**p))
                .map(|p| p.len())
                .max()
                .unwrap_or_else(|| text[at..].chars().next().map_or(1, char::len_utf8));
            at += len;
            Kind::Punct
        };
        out.push(Token {
            kind,
            text: text[start..at].to_owned(),
            at: start..at,
        });
    }
    Ok(out)
}

/// How the expression may touch a slice parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SliceUse {
    /// `&[T]`: read only.
    Read,
    /// `&mut [T]`: read and written.
    Write,
}

/// What the expression does, as far as the generator needs to know.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reading {
    /// Slices whose values the expression reads (an output only assigned is not read).
    pub read: BTreeSet<String>,
    /// Slices it assigns.
    pub written: BTreeSet<String>,
    /// Why the kernel may leave its slices, when it may.
    pub unsafe_reason: Option<String>,
    /// Byte ranges of every `name[i]` access, with the slice's name.
    pub accesses: Vec<(Range<usize>, String)>,
    /// Every statement runs once per element, unconditionally (no control flow, no `?:`,
    /// no short-circuit operators): an output assigned at the start of a statement is
    /// then written at every element.
    pub straight: bool,
    /// Outputs assigned at the start of a statement (`y[i] = ...`).
    pub assigned_first: BTreeSet<String>,
}

/// Keywords and constants an expression may use without leaving its slices (beside the
/// type names of [`TYPES`]).
const KEYWORDS: &[&str] = &[
    "const",
    "true",
    "false",
    "if",
    "else",
    "for",
    "while",
    "do",
    "return",
    "break",
    "continue",
    "sizeof",
    "static_cast",
    "INFINITY",
    "NAN",
    "HUGE_VALF",
    "HUGE_VAL",
];

/// Type keywords after which an identifier is a new local.
const TYPES: &[&str] = &[
    "float",
    "double",
    "int",
    "unsigned",
    "signed",
    "long",
    "short",
    "char",
    "bool",
    "auto",
    "__half",
    "__nv_bfloat16",
    "half",
    "nv_bfloat16",
    "__half2",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "size_t",
];

/// Functions that take and return values only (C math, CUDA math and conversions).
const FUNCTIONS: &[&str] = &[
    "abs",
    "labs",
    "llabs",
    "min",
    "max",
    "umin",
    "umax",
    "llmin",
    "llmax",
    "ullmin",
    "ullmax",
    "fabs",
    "fabsf",
    "fmin",
    "fminf",
    "fmax",
    "fmaxf",
    "fma",
    "fmaf",
    "sqrt",
    "sqrtf",
    "rsqrt",
    "rsqrtf",
    "cbrt",
    "cbrtf",
    "rcbrt",
    "rcbrtf",
    "exp",
    "expf",
    "exp2",
    "exp2f",
    "exp10",
    "exp10f",
    "expm1",
    "expm1f",
    "log",
    "logf",
    "log2",
    "log2f",
    "log10",
    "log10f",
    "log1p",
    "log1pf",
    "pow",
    "powf",
    "sin",
    "sinf",
    "cos",
    "cosf",
    "tan",
    "tanf",
    "asin",
    "asinf",
    "acos",
    "acosf",
    "atan",
    "atanf",
    "atan2",
    "atan2f",
    "sinh",
    "sinhf",
    "cosh",
    "coshf",
    "tanh",
    "tanhf",
    "asinh",
    "asinhf",
    "acosh",
    "acoshf",
    "atanh",
    "atanhf",
    "sinpi",
    "sinpif",
    "cospi",
    "cospif",
    "erf",
    "erff",
    "erfc",
    "erfcf",
    "erfinv",
    "erfinvf",
    "lgamma",
    "lgammaf",
    "tgamma",
    "tgammaf",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "round",
    "roundf",
    "rint",
    "rintf",
    "trunc",
    "truncf",
    "fmod",
    "fmodf",
    "remainder",
    "remainderf",
    "copysign",
    "copysignf",
    "hypot",
    "hypotf",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "fdim",
    "fdimf",
    "normcdf",
    "normcdff",
    "__expf",
    "__logf",
    "__sinf",
    "__cosf",
    "__powf",
    "__fdividef",
    "__saturatef",
    "__popc",
    "__popcll",
    "__clz",
    "__clzll",
    "__ffs",
    "__ffsll",
    "__brev",
    "__brevll",
    "__half2float",
    "__float2half",
    "__bfloat162float",
    "__float2bfloat16",
    "__hadd",
    "__hsub",
    "__hmul",
    "__hdiv",
    "__hfma",
    "__hmax",
    "__hmin",
    "__habs",
    "__hneg",
    "hsqrt",
    "hexp",
    "hlog",
    "__hisnan",
    "__hisinf",
    "__heq",
    "__hlt",
    "__hgt",
    "__hle",
    "__hge",
    "__float2int_rn",
    "__float2int_rz",
    "__int2float_rn",
    "__double2float_rn",
    "__uint2float_rn",
    "__float_as_int",
    "__int_as_float",
    "__float_as_uint",
    "__uint_as_float",
    "__double_as_longlong",
    "__longlong_as_double",
    "__umulhi",
    "__mulhi",
    "__umul64hi",
    "__mul64hi",
    "__sad",
    "__usad",
];

/// Reads `text`. `slices` are the slice parameters with their access, `names` every other
/// name the expression may use (scalar parameters, `i`, `n`, `a`, `b`...). `statements`:
/// the text is a list of statements (an elementwise body) rather than one expression.
pub(crate) fn read(
    text: &str,
    slices: &[(&str, SliceUse)],
    names: &[&str],
    statements: bool,
) -> Result<Reading, String> {
    if text.trim().is_empty() {
        return Err("the expression is empty".into());
    }
    let toks = tokens(text)?;
    if toks.is_empty() {
        return Err("the expression is empty".into());
    }
    check_brackets(&toks)?;
    let mut reading = Reading {
        straight: true,
        ..Reading::default()
    };
    let mut locals: BTreeSet<&str> = BTreeSet::new();
    let mut unsafe_reason: Option<String> = None;
    let mut note = |reason: String| {
        if unsafe_reason.is_none() {
            unsafe_reason = Some(reason);
        }
    };
    let mut consumed_brackets = BTreeSet::new();
    let mut depth = 0i32;
    for (k, tok) in toks.iter().enumerate() {
        let prev = k.checked_sub(1).map(|p| &toks[p]);
        let next = toks.get(k + 1);
        match tok.kind {
            Kind::Punct => match tok.text.as_str() {
                "(" | "{" => depth += 1,
                ")" | "}" => depth -= 1,
                ";" if !statements && depth == 0 => {
                    return Err("this must be one C expression, without `;`".into());
                }
                "?" | "&&" | "||" => reading.straight = false,
                "[" if !consumed_brackets.contains(&k) => {
                    note("it indexes something other than a slice parameter with `[i]`".into());
                }
                "*" | "&" if next.is_some_and(|n| matches!(n.text.as_str(), ")" | ">" | ",")) => {
                    note("it names a pointer or reference type".into());
                }
                "&" | "*" if is_unary(prev) => {
                    note(format!(
                        "it uses unary `{}` (forms or follows a pointer)",
                        tok.text
                    ));
                }
                "->" | "->*" | ".*" => note(format!("it uses `{}`", tok.text)),
                "#" => note("it uses the preprocessor".into()),
                _ => {}
            },
            Kind::Ident => {
                let name = tok.text.as_str();
                if matches!(
                    name,
                    "if" | "for" | "while" | "do" | "return" | "break" | "continue"
                ) {
                    reading.straight = false;
                }
                if let Some((_, access)) = slices.iter().find(|(s, _)| *s == name) {
                    let subscript = toks
                        .get(k + 1..k + 4)
                        .is_some_and(|t| t[0].text == "[" && t[1].text == "i" && t[2].text == "]");
                    if !subscript {
                        note(format!("it uses `{name}` other than as `{name}[i]`"));
                        continue;
                    }
                    consumed_brackets.insert(k + 1);
                    let after = toks.get(k + 4).map(|t| t.text.as_str());
                    let before = prev.map(|t| t.text.as_str());
                    let assigns = matches!(
                        after,
                        Some(
                            "=" | "+="
                                | "-="
                                | "*="
                                | "/="
                                | "%="
                                | "&="
                                | "|="
                                | "^="
                                | "<<="
                                | ">>="
                                | "++"
                                | "--"
                        )
                    ) || matches!(before, Some("++" | "--"));
                    reading
                        .accesses
                        .push((tok.at.start..toks[k + 3].at.end, name.to_owned()));
                    if assigns {
                        if *access == SliceUse::Read {
                            return Err(format!(
                                "`{name}` is an input (`&[T]`) and cannot be written; declare it `&mut [T]` to write it"
                            ));
                        }
                        reading.written.insert(name.to_owned());
                    }
                    let pure_write = after == Some("=");
                    if !pure_write {
                        reading.read.insert(name.to_owned());
                    } else if depth == 0 && matches!(before, None | Some(";")) {
                        reading.assigned_first.insert(name.to_owned());
                    }
                } else if names.contains(&name)
                    || KEYWORDS.contains(&name)
                    || TYPES.contains(&name)
                    || locals.contains(name)
                {
                } else if prev.is_some_and(|p| TYPES.contains(&p.text.as_str())) {
                    locals.insert(name);
                } else if FUNCTIONS.contains(&name)
                    && next.is_some_and(|n| n.text == "(")
                    && prev.is_none_or(|p| p.text != "." && p.text != "::")
                {
                } else {
                    note(format!(
                        "it names `{name}`, which the generator cannot see into"
                    ));
                }
            }
            Kind::Number | Kind::Literal => {}
        }
    }
    reading.unsafe_reason = unsafe_reason;
    Ok(reading)
}

/// Whether a `&` or `*` after `prev` is a unary operator (not a binary one, not a
/// declarator after a type name, which is caught as a pointer type).
fn is_unary(prev: Option<&Token>) -> bool {
    match prev {
        None => true,
        Some(t) => match t.kind {
            Kind::Ident => t.text == "return" || TYPES.contains(&t.text.as_str()),
            Kind::Number | Kind::Literal => false,
            Kind::Punct => !matches!(t.text.as_str(), ")" | "]"),
        },
    }
}

/// Brackets, parentheses and braces are balanced and nested.
fn check_brackets(toks: &[Token]) -> Result<(), String> {
    let mut open: Vec<&str> = Vec::new();
    for t in toks {
        match t.text.as_str() {
            "(" | "[" | "{" => open.push(&t.text),
            ")" | "]" | "}" => {
                let want = match t.text.as_str() {
                    ")" => "(",
                    "]" => "[",
                    _ => "{",
                };
                match open.pop() {
                    Some(o) if o == want => {}
                    Some(o) => {
                        return Err(format!("`{}` closes a `{o}`", t.text));
                    }
                    None => return Err(format!("`{}` has no opening `{want}`", t.text)),
                }
            }
            _ => {}
        }
    }
    match open.last() {
        Some(o) => Err(format!("a `{o}` is not closed")),
        None => Ok(()),
    }
}

/// `text` with every `name[i]` access replaced by `replace(name)`.
pub(crate) fn substitute(
    text: &str,
    reading: &Reading,
    replace: impl Fn(&str) -> String,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (range, name) in &reading.accesses {
        out.push_str(&text[last..range.start]);
        out.push_str(&replace(name));
        last = range.end;
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axpy(text: &str) -> Result<Reading, String> {
        read(
            text,
            &[("x", SliceUse::Read), ("y", SliceUse::Write)],
            &["a", "i", "n"],
            true,
        )
    }

    #[test]
    fn tokens_of_an_expression() {
        let t = tokens("y[i] += 1.5e-3f * x[i] /* c */ // d\n>>= 'a' \"s\"").unwrap();
        let texts: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "y", "[", "i", "]", "+=", "1.5e-3f", "*", "x", "[", "i", "]", ">>=", "'a'", "\"s\""
            ]
        );
        assert!(tokens("/* open").is_err());
        assert!(tokens("\"open").is_err());
    }

    #[test]
    fn axpy_is_safe_and_reads_y() {
        let r = axpy("y[i] = a * x[i] + y[i]").unwrap();
        assert_eq!(r.unsafe_reason, None);
        assert!(r.read.contains("x") && r.read.contains("y"));
        assert!(r.written.contains("y"));
        assert_eq!(r.accesses.len(), 3);
        assert!(r.straight);
    }

    #[test]
    fn an_output_only_assigned_is_not_read() {
        let r = axpy("y[i] = 2 * x[i]; float t = sqrtf(x[i]); y[i] = t").unwrap();
        assert!(!r.read.contains("y"));
        assert!(r.assigned_first.contains("y"));
        assert_eq!(r.unsafe_reason, None, "locals and math functions are fine");
    }

    #[test]
    fn unsafe_readings_name_the_reason() {
        for (text, reason) in [
            ("y[i] = x[i + 1]", "other than as `x[i]`"),
            ("y[i] = *(x + i)", "unary `*`"),
            ("y[i] = (&x[i])[1]", "unary `&`"),
            ("y[i] = my_func(x[i])", "`my_func`"),
            (
                "float t[2]; t[3] = 1; y[i] = t[0]",
                "indexes something other",
            ),
            ("y[i] = ((float*)0)[0]", "pointer or reference type"),
            ("asm(\"trap;\"); y[i] = 0", "`asm`"),
        ] {
            let r = axpy(text).unwrap();
            let got = r.unsafe_reason.unwrap_or_default();
            assert!(got.contains(reason), "{text}: {got}");
        }
    }

    #[test]
    fn mistakes_found_before_nvcc() {
        assert!(axpy("").unwrap_err().contains("empty"));
        assert!(axpy("y[i] = (a * x[i]").unwrap_err().contains("not closed"));
        assert!(axpy("y[i] = a) * x[i]").unwrap_err().contains("no opening"));
        assert!(axpy("x[i] = a").unwrap_err().contains("`x` is an input"));
        assert!(axpy("x[i]++").unwrap_err().contains("`x` is an input"));
        let e = read("a + b; b", &[], &["a", "b"], false).unwrap_err();
        assert!(e.contains("one C expression"), "{e}");
    }

    #[test]
    fn control_flow_is_not_straight() {
        assert!(!axpy("if (x[i] > 0) y[i] = x[i]").unwrap().straight);
        assert!(!axpy("y[i] = x[i] > 0 ? x[i] : 0").unwrap().straight);
    }

    #[test]
    fn substitution_replaces_accesses_only() {
        let text = "y[i] = a * x[i] + y[i] + i";
        let r = axpy(text).unwrap();
        let s = substitute(text, &r, |n| format!("v_{n}[k]"));
        assert_eq!(s, "v_y[k] = a * v_x[k] + v_y[k] + i");
    }
}

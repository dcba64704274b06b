//! A tuned kernel's declaration checked where it is given (the macro's `tune` item,
//! `Build::tune`), with the same words for both: names, values, the variants it makes and
//! the syntax of its rules. What needs the source (the kernel, its template parameters,
//! the names the rules read) is checked once the source is read (`resolve`).

use crate::diagnostics::tune as msg;
use crate::model::request::{ModuleRequest, TuneRequest};

use super::rule;

/// The most variants one declaration may make.
pub(crate) const MAX_VARIANTS: usize = 256;

/// Keys of a declaration that are not axes.
const KEYS: [&str; 4] = ["block", "grid", "shared", "variants"];

/// A problem with a declaration, and what it is about (for the macro's span).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TuneProblem {
    /// What the problem is about.
    pub at: TuneAt,
    /// The message.
    pub message: String,
}

/// The part of a declaration a problem is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TuneAt {
    /// The kernel's name (the declaration as a whole).
    Kernel,
    /// Axis number `n`.
    Axis(usize),
    /// Value number `v` of axis number `a`.
    Value(usize, usize),
    /// Listed variant number `n`.
    Listed(usize),
    /// The rule named.
    Rule(&'static str),
}

/// A declaration's variants: the axes, and each variant's values in the axes' order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Variants {
    pub axes: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl ModuleRequest {
    /// Adds a kernel to tune over declared variants, after checking what can be checked
    /// without the source.
    pub fn tune(&mut self, t: TuneRequest) -> Result<(), TuneProblem> {
        let k = &t.kernel;
        let problem = |at, message| TuneProblem { at, message };
        let name_ok = !k.is_empty()
            && k.trim_start_matches("::")
                .split("::")
                .all(crate::pipeline::request::is_identifier);
        if !name_ok {
            return Err(problem(TuneAt::Kernel, msg::bad_kernel(k)));
        }
        if self.tuned.iter().any(|x| x.kernel == *k) {
            return Err(problem(TuneAt::Kernel, msg::twice(k)));
        }
        variants(&t)?;
        for (which, text, dims) in [
            ("grid", &t.grid, true),
            ("block", &t.block, true),
            ("shared", &t.shared, false),
        ] {
            let at = TuneAt::Rule(which);
            match text {
                None if which == "shared" => {}
                None => return Err(problem(at, msg::missing_rule(k, which))),
                Some(text) => {
                    rule::read(text, dims)
                        .map_err(|why| problem(at, msg::bad_rule(k, which, text, &why)))?;
                }
            }
        }
        self.tuned.push(t);
        Ok(())
    }
}

/// The variants of a declaration: every combination of the axes' values (the last axis
/// varying fastest), or the listed ones.
pub(crate) fn variants(t: &TuneRequest) -> Result<Variants, TuneProblem> {
    let k = &t.kernel;
    let problem = |at, message| TuneProblem { at, message };
    let out = match (t.axes.is_empty(), t.listed.is_empty()) {
        (true, true) => return Err(problem(TuneAt::Kernel, msg::no_variants(k))),
        (false, false) => return Err(problem(TuneAt::Kernel, msg::both_forms(k))),
        (false, true) => {
            for (a, (axis, values)) in t.axes.iter().enumerate() {
                check_axis(
                    k,
                    axis,
                    a,
                    &t.axes[..a]
                        .iter()
                        .map(|(n, _)| n.clone())
                        .collect::<Vec<_>>(),
                )?;
                if values.is_empty() {
                    return Err(problem(TuneAt::Axis(a), msg::no_values(k, axis)));
                }
                for (v, value) in values.iter().enumerate() {
                    if !is_value(value) {
                        return Err(problem(TuneAt::Value(a, v), msg::bad_value(k, axis, value)));
                    }
                    if values[..v].contains(value) {
                        return Err(problem(
                            TuneAt::Value(a, v),
                            msg::value_twice(k, axis, value),
                        ));
                    }
                }
            }
            let count = t
                .axes
                .iter()
                .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()))
                .unwrap_or(usize::MAX);
            if count > MAX_VARIANTS {
                return Err(problem(
                    TuneAt::Kernel,
                    msg::too_many(k, count, MAX_VARIANTS),
                ));
            }
            let mut rows: Vec<Vec<String>> = vec![Vec::new()];
            for (_, values) in &t.axes {
                rows = rows
                    .into_iter()
                    .flat_map(|row| {
                        values.iter().map(move |v| {
                            let mut r = row.clone();
                            r.push(v.clone());
                            r
                        })
                    })
                    .collect();
            }
            Variants {
                axes: t.axes.iter().map(|(a, _)| a.clone()).collect(),
                rows,
            }
        }
        (true, false) => {
            if t.listed.len() > MAX_VARIANTS {
                return Err(problem(
                    TuneAt::Kernel,
                    msg::too_many(k, t.listed.len(), MAX_VARIANTS),
                ));
            }
            let mut axes: Vec<String> = Vec::new();
            let mut rows = Vec::new();
            for (i, text) in t.listed.iter().enumerate() {
                let at = TuneAt::Listed(i);
                let pairs =
                    listed_pairs(text).ok_or_else(|| problem(at, msg::bad_listed(k, text)))?;
                if i == 0 {
                    for (j, (axis, _)) in pairs.iter().enumerate() {
                        check_axis(k, axis, j, &axes).map_err(|p| TuneProblem { at, ..p })?;
                        axes.push(axis.clone());
                    }
                }
                let same = pairs.len() == axes.len()
                    && axes.iter().all(|a| pairs.iter().any(|(p, _)| p == a));
                if !same {
                    return Err(problem(at, msg::listed_axes_differ(k, text, &axes)));
                }
                let mut row = Vec::new();
                for a in &axes {
                    let value = pairs
                        .iter()
                        .find(|(p, _)| p == a)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default();
                    if !is_value(&value) {
                        return Err(problem(at, msg::bad_value(k, a, &value)));
                    }
                    row.push(value);
                }
                rows.push(row);
            }
            Variants { axes, rows }
        }
    };
    let mut names: Vec<String> = Vec::new();
    for row in &out.rows {
        let name = variant_name(&out.axes, row);
        if names.contains(&name) {
            return Err(problem(TuneAt::Kernel, msg::variant_twice(k, &name)));
        }
        names.push(name);
    }
    Ok(out)
}

fn check_axis(kernel: &str, axis: &str, at: usize, before: &[String]) -> Result<(), TuneProblem> {
    if !crate::pipeline::request::is_identifier(axis) || KEYS.contains(&axis) {
        return Err(TuneProblem {
            at: TuneAt::Axis(at),
            message: msg::bad_axis(kernel, axis),
        });
    }
    if before.iter().any(|b| b == axis) {
        return Err(TuneProblem {
            at: TuneAt::Axis(at),
            message: msg::axis_twice(kernel, axis),
        });
    }
    Ok(())
}

/// `BLOCK=128 ITEMS=4` (or separated by commas) as pairs; `None` when it is not.
fn listed_pairs(text: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut piece = String::new();
    let mut pieces = Vec::new();
    for c in text.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ => {}
        }
        if depth == 0 && (c == ',' || c.is_whitespace()) {
            if !piece.is_empty() {
                pieces.push(std::mem::take(&mut piece));
            }
        } else {
            piece.push(c);
        }
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    for p in pieces {
        let (a, v) = p.split_once('=')?;
        if a.is_empty() || v.is_empty() {
            return None;
        }
        out.push((a.to_owned(), v.to_owned()));
    }
    (!out.is_empty()).then_some(out)
}

/// An integer (with an optional `u`/`l` suffix), `true`, `false`, or text that reads as a
/// type name (`float`, `unsigned int`, `ops::Pair<float, int>`, `const float*`).
fn is_value(v: &str) -> bool {
    let v = v.trim();
    if v.is_empty() {
        return false;
    }
    if int_value(v).is_some() {
        return true;
    }
    let first_ok = v.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == ':');
    first_ok
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || " _:<>,*&".contains(c))
}

/// The integer a value stands for: an integer literal (its suffix dropped), `true` (1),
/// `false` (0); `None` for a type.
pub(crate) fn int_value(v: &str) -> Option<i64> {
    let v = v.trim();
    match v {
        "true" => return Some(1),
        "false" => return Some(0),
        _ => {}
    }
    let digits = v.trim_end_matches(['u', 'U', 'l', 'L']);
    let (negative, body) = match digits.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, digits),
    };
    let value = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()?
    } else if body.chars().all(|c| c.is_ascii_digit()) && !body.is_empty() {
        body.parse().ok()?
    } else {
        return None;
    };
    Some(if negative { -value } else { value })
}

/// A variant's name: each axis in lowercase followed by its value, joined by `_`
/// (`block128_items4`, `t_float`); what the cache, the table and `KERNEL_TUNE_PIN` call it.
pub(crate) fn variant_name(axes: &[String], values: &[String]) -> String {
    axes.iter()
        .zip(values)
        .map(|(a, v)| {
            let mut word: String = v
                .trim()
                .trim_start_matches("::")
                .chars()
                .map(|c| match c {
                    '-' => 'm',
                    c if c.is_ascii_alphanumeric() => c,
                    _ => '_',
                })
                .collect();
            while word.contains("__") {
                word = word.replace("__", "_");
            }
            let word = word.trim_matches('_');
            let axis = a.to_lowercase();
            if word.starts_with(|c: char| c.is_ascii_digit() || c == 'm') {
                format!("{axis}{word}")
            } else {
                format!("{axis}_{word}")
            }
        })
        .collect::<Vec<_>>()
        .join("_")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::request::SourceInput;

    fn request() -> ModuleRequest {
        ModuleRequest::new(
            "m",
            SourceInput::Inline {
                text: String::new(),
            },
        )
    }

    fn sum() -> TuneRequest {
        TuneRequest {
            kernel: "block_sum".into(),
            axes: vec![
                ("BLOCK".into(), vec!["128".into(), "256".into()]),
                ("ITEMS".into(), vec!["1".into(), "4".into(), "16".into()]),
            ],
            grid: Some("n.div_ceil(BLOCK * ITEMS)".into()),
            block: Some("BLOCK".into()),
            ..TuneRequest::default()
        }
    }

    #[test]
    fn a_grid_of_axes_makes_every_combination_named_by_its_values() {
        let v = variants(&sum()).unwrap();
        assert_eq!(v.rows.len(), 6);
        assert_eq!(v.rows[1], ["128", "4"]);
        let names: Vec<String> = v.rows.iter().map(|r| variant_name(&v.axes, r)).collect();
        assert_eq!(names[0], "block128_items1");
        assert_eq!(names[5], "block256_items16");
        assert_eq!(
            variant_name(
                &["T".into(), "K".into()],
                &["unsigned int".into(), "-1".into()]
            ),
            "t_unsigned_int_km1"
        );
        let mut req = request();
        req.tune(sum()).unwrap();
        assert_eq!(
            req.tune(sum()).unwrap_err().message,
            msg::twice("block_sum")
        );
    }

    #[test]
    fn a_list_of_variants_gives_the_same_axes_in_any_order() {
        let t = TuneRequest {
            listed: vec!["BLOCK=128 ITEMS=4".into(), "ITEMS=8, BLOCK=256".into()],
            axes: Vec::new(),
            ..sum()
        };
        let v = variants(&t).unwrap();
        assert_eq!(v.axes, ["BLOCK", "ITEMS"]);
        assert_eq!(v.rows[1], ["256", "8"]);
        let bad = TuneRequest {
            listed: vec!["BLOCK=128".into(), "ITEMS=8".into()],
            ..t.clone()
        };
        assert_eq!(variants(&bad).unwrap_err().at, TuneAt::Listed(1));
        let bad = TuneRequest {
            listed: vec!["BLOCK 128".into()],
            ..t
        };
        assert!(
            variants(&bad)
                .unwrap_err()
                .message
                .contains("is not a variant")
        );
    }

    #[test]
    fn declarations_are_refused_with_what_is_wrong() {
        let cases: Vec<(TuneRequest, TuneAt, &str)> = vec![
            (
                TuneRequest {
                    kernel: "a-b".into(),
                    ..sum()
                },
                TuneAt::Kernel,
                "not a kernel name",
            ),
            (
                TuneRequest {
                    axes: Vec::new(),
                    ..sum()
                },
                TuneAt::Kernel,
                "declares no variant",
            ),
            (
                TuneRequest {
                    listed: vec!["BLOCK=1".into()],
                    ..sum()
                },
                TuneAt::Kernel,
                "not both",
            ),
            (
                TuneRequest {
                    axes: vec![("grid".into(), vec!["1".into()])],
                    ..sum()
                },
                TuneAt::Axis(0),
                "cannot name an axis",
            ),
            (
                TuneRequest {
                    axes: vec![("B".into(), vec![])],
                    ..sum()
                },
                TuneAt::Axis(0),
                "lists no value",
            ),
            (
                TuneRequest {
                    axes: vec![("B".into(), vec!["1".into(), "x;y".into()])],
                    ..sum()
                },
                TuneAt::Value(0, 1),
                "neither an integer nor a type name",
            ),
            (
                TuneRequest {
                    axes: vec![("B".into(), vec!["1".into(), "1".into()])],
                    ..sum()
                },
                TuneAt::Value(0, 1),
                "lists `1` twice",
            ),
            (
                TuneRequest {
                    grid: None,
                    ..sum()
                },
                TuneAt::Rule("grid"),
                "no `grid` rule",
            ),
            (
                TuneRequest {
                    block: Some("BLOCK as u32".into()),
                    ..sum()
                },
                TuneAt::Rule("block"),
                "takes `BLOCK as u32`",
            ),
            (
                TuneRequest {
                    axes: (0..9)
                        .map(|i| (format!("A{i}"), vec!["1".into(), "2".into()]))
                        .collect(),
                    ..sum()
                },
                TuneAt::Kernel,
                "512 variants",
            ),
        ];
        for (t, at, want) in cases {
            let err = request().tune(t).unwrap_err();
            assert_eq!(err.at, at, "{}", err.message);
            assert!(err.message.contains(want), "{}", err.message);
        }
    }

    #[test]
    fn values_read_as_integers_where_they_are() {
        assert_eq!(int_value("128"), Some(128));
        assert_eq!(int_value("-3"), Some(-3));
        assert_eq!(int_value("64u"), Some(64));
        assert_eq!(int_value("0x10"), Some(16));
        assert_eq!(int_value("true"), Some(1));
        assert_eq!(int_value("float"), None);
        assert!(is_value("ops::Pair<float, int>") && is_value("const float*"));
        assert!(!is_value("1; x") && !is_value("\"a\""));
    }
}

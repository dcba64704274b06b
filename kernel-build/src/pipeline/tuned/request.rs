//! A tuned kernel's declaration checked where it is given (the macro's `tune` item,
//! `Build::tune`), with the same words for both: names, values, the variants it makes and
//! the syntax of its rules. What needs the source (the kernel, its template parameters,
//! the names the rules read) is checked once the source is read (`resolve`).

use crate::diagnostics::tune::TuneFault;
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

/// A declaration's variants: the axes, each variant's values in the axes' order, its name
/// and the integer each value stands for (`None` for a type).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Variants {
    pub axes: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub names: Vec<String>,
    pub ints: Vec<Vec<Option<i64>>>,
}

/// A fault of a declaration and the part it is about; worded by the catalog
/// ([`TuneFault::message`]) where it is reported.
pub(crate) type Refused = (TuneAt, TuneFault);

impl ModuleRequest {
    /// Adds a kernel to tune over declared variants, after checking what can be checked
    /// without the source.
    pub fn tune(&mut self, t: TuneRequest) -> Result<(), TuneProblem> {
        match self.check_tune(&t) {
            Ok(()) => {
                self.tuned.push(t);
                Ok(())
            }
            Err((at, fault)) => Err(TuneProblem {
                at,
                message: fault.message(&t.kernel),
            }),
        }
    }

    /// What [`tune`](ModuleRequest::tune) checks: the name, the variants and the rules' syntax.
    fn check_tune(&self, t: &TuneRequest) -> Result<(), Refused> {
        let k = &t.kernel;
        let name_ok = !k.is_empty()
            && k.trim_start_matches("::")
                .split("::")
                .all(crate::pipeline::request::is_identifier);
        if !name_ok {
            return Err((TuneAt::Kernel, TuneFault::BadKernel));
        }
        if self.tuned.iter().any(|x| x.kernel == *k) {
            return Err((TuneAt::Kernel, TuneFault::Twice));
        }
        variants(t)?;
        for (rule, text, dims) in [
            ("grid", &t.grid, true),
            ("block", &t.block, true),
            ("shared", &t.shared, false),
        ] {
            let at = TuneAt::Rule(rule);
            match text {
                None if rule == "shared" => {}
                None => return Err((at, TuneFault::MissingRule { rule })),
                Some(text) => {
                    rule::read(text, dims).map_err(|why| {
                        let text = text.clone();
                        (at, TuneFault::BadRule { rule, text, why })
                    })?;
                }
            }
        }
        Ok(())
    }
}

/// The variants of a declaration: every combination of the axes' values (the last axis
/// varying fastest), or the listed ones, each named.
pub(crate) fn variants(t: &TuneRequest) -> Result<Variants, Refused> {
    let (axes, rows) = match (t.axes.is_empty(), t.listed.is_empty()) {
        (true, true) => return Err((TuneAt::Kernel, TuneFault::NoVariants)),
        (false, false) => return Err((TuneAt::Kernel, TuneFault::BothForms)),
        (false, true) => combined(t)?,
        (true, false) => listed(t)?,
    };
    let mut names: Vec<String> = Vec::new();
    for row in &rows {
        let name = variant_name(&axes, row);
        if names.contains(&name) {
            return Err((TuneAt::Kernel, TuneFault::VariantTwice { name }));
        }
        names.push(name);
    }
    let ints = rows
        .iter()
        .map(|row| row.iter().map(|v| int_value(v)).collect())
        .collect();
    Ok(Variants {
        axes,
        rows,
        names,
        ints,
    })
}

/// Axes with their values: every combination, checked.
fn combined(t: &TuneRequest) -> Result<(Vec<String>, Vec<Vec<String>>), Refused> {
    for (a, (axis, values)) in t.axes.iter().enumerate() {
        let before: Vec<String> = t.axes[..a].iter().map(|(n, _)| n.clone()).collect();
        check_axis(axis, &before).map_err(|f| (TuneAt::Axis(a), f))?;
        if values.is_empty() {
            let axis = axis.clone();
            return Err((TuneAt::Axis(a), TuneFault::NoValues { axis }));
        }
        for (v, value) in values.iter().enumerate() {
            let (axis, value) = (axis.clone(), value.clone());
            if !is_value(&value) {
                return Err((TuneAt::Value(a, v), TuneFault::BadValue { axis, value }));
            }
            if values[..v].contains(&value) {
                return Err((TuneAt::Value(a, v), TuneFault::ValueTwice { axis, value }));
            }
        }
    }
    let count = t
        .axes
        .iter()
        .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()))
        .unwrap_or(usize::MAX);
    if count > MAX_VARIANTS {
        let max = MAX_VARIANTS;
        return Err((TuneAt::Kernel, TuneFault::TooMany { count, max }));
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
    Ok((t.axes.iter().map(|(a, _)| a.clone()).collect(), rows))
}

/// Listed variants (`BLOCK=128 ITEMS=4`), each with the first one's axes, checked.
fn listed(t: &TuneRequest) -> Result<(Vec<String>, Vec<Vec<String>>), Refused> {
    if t.listed.len() > MAX_VARIANTS {
        let (count, max) = (t.listed.len(), MAX_VARIANTS);
        return Err((TuneAt::Kernel, TuneFault::TooMany { count, max }));
    }
    let mut axes: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for (i, text) in t.listed.iter().enumerate() {
        let at = TuneAt::Listed(i);
        let text = text.clone();
        let Some(pairs) = listed_pairs(&text) else {
            return Err((at, TuneFault::BadListed { text }));
        };
        if i == 0 {
            for (axis, _) in &pairs {
                check_axis(axis, &axes).map_err(|f| (at, f))?;
                axes.push(axis.clone());
            }
        }
        let same =
            pairs.len() == axes.len() && axes.iter().all(|a| pairs.iter().any(|(p, _)| p == a));
        if !same {
            let first = axes.clone();
            return Err((at, TuneFault::ListedAxesDiffer { text, first }));
        }
        let mut row = Vec::new();
        for a in &axes {
            let value = pairs
                .iter()
                .find(|(p, _)| p == a)
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            if !is_value(&value) {
                let axis = a.clone();
                return Err((at, TuneFault::BadValue { axis, value }));
            }
            row.push(value);
        }
        rows.push(row);
    }
    Ok((axes, rows))
}

/// An axis's name: an identifier, no key of the declaration, not given before.
fn check_axis(axis: &str, before: &[String]) -> Result<(), TuneFault> {
    let axis = axis.to_owned();
    if !crate::pipeline::request::is_identifier(&axis) || KEYS.contains(&axis.as_str()) {
        return Err(TuneFault::BadAxis { axis });
    }
    if before.contains(&axis) {
        return Err(TuneFault::AxisTwice { axis });
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
        assert_eq!(v.ints[1], [Some(128), Some(4)]);
        assert_eq!(v.names[0], "block128_items1");
        assert_eq!(v.names[5], "block256_items16");
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
            TuneFault::Twice.message("block_sum")
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
        assert_eq!(variants(&bad).unwrap_err().0, TuneAt::Listed(1));
        let bad = TuneRequest {
            listed: vec!["BLOCK 128".into()],
            ..t
        };
        let (at, fault) = variants(&bad).unwrap_err();
        assert_eq!(at, TuneAt::Listed(0));
        assert!(fault.message("block_sum").contains("is not a variant"));
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

//! The text form of tuned choices: which variant of a tuned kernel ran fastest for one problem
//! key on one GPU model, for one build of its module. The runtime's tuning cache stores one
//! row per file in it, `cuda-kernel-inspect tune export` merges those files into one table,
//! and a program embeds that table (`include_str!`) so that it never times anything; defined
//! once here, where the runtime and the command both read it.
//!
//! A table is UTF-8 text: the first line is [`MAGIC`], lines starting with `#` are comments,
//! blank lines are skipped, and every other line is one [`Choice`], its fields separated by
//! tabs in this order:
//!
//! ```text
//! kernel  gpu  compute capability  driver  module  key  variant  nanoseconds
//! ```
//!
//! A tab, a newline or a backslash inside a field is written `\t`, `\n`, `\\`.
//!
//! ```
//! use cuda_kernel_objects::tuning::{Choice, parse_table, render_table};
//! let row = Choice {
//!     kernel: "sum".into(), gpu: "NVIDIA H100 80GB HBM3".into(), compute_capability: (9, 0),
//!     driver: "13.0".into(), module: "3fa2c01d9e7b4a55".into(), key: "n=1048576".into(),
//!     variant: "block256_items4".into(), nanos: 10_240,
//! };
//! let text = render_table(std::slice::from_ref(&row));
//! assert_eq!(parse_table(&text).unwrap(), vec![row]);
//! ```

use std::fmt::Write as _;

/// The first line of every table.
///
/// ```
/// assert!(cuda_kernel_objects::tuning::MAGIC.starts_with('#'));
/// ```
pub const MAGIC: &str = "# cuda-kernel tuning table 1";

/// The line naming the columns, written after [`MAGIC`].
const COLUMNS: &str = "# kernel\tgpu\tcc\tdriver\tmodule\tkey\tvariant\tnanos";

/// The line after an entry file's row: its checksum.
const CHECKSUM: &str = "# checksum ";

/// One tuned choice.
///
/// ```
/// use cuda_kernel_objects::tuning::Choice;
/// let c = Choice { kernel: "sum".into(), gpu: "NVIDIA H100".into(), compute_capability: (9, 0),
///     driver: "13.0".into(), module: "none".into(), key: "n=4096".into(),
///     variant: "block128".into(), nanos: 900 };
/// assert!(c.same_place(&Choice { variant: "block256".into(), ..c.clone() }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Choice {
    /// The tuned kernel's name (what the tuner was made with).
    pub kernel: String,
    /// The GPU's name, as the driver gives it (`NVIDIA H100 80GB HBM3`).
    pub gpu: String,
    /// The GPU's compute capability, `(major, minor)`.
    pub compute_capability: (u32, u32),
    /// The driver's CUDA version when the choice was timed (`13.0`); the runtime's disk cache
    /// matches it, an embedded table does not.
    pub driver: String,
    /// The hash of the module the variants come from (`none` when they were given without one).
    pub module: String,
    /// The problem key, as its `Display` writes it.
    pub key: String,
    /// The chosen variant's name.
    pub variant: String,
    /// The chosen variant's median time, in nanoseconds.
    pub nanos: u64,
}

impl Choice {
    /// Whether `other` is a choice for the same kernel, GPU model, module and key (the driver
    /// and the variant may differ): the rows a merge replaces.
    ///
    /// ```
    /// # use cuda_kernel_objects::tuning::Choice;
    /// let a = Choice { kernel: "k".into(), gpu: "g".into(), compute_capability: (9, 0),
    ///     driver: "13.0".into(), module: "m".into(), key: "n=1".into(), variant: "a".into(), nanos: 1 };
    /// assert!(!a.same_place(&Choice { key: "n=2".into(), ..a.clone() }));
    /// ```
    pub fn same_place(&self, other: &Choice) -> bool {
        self.kernel == other.kernel
            && self.gpu == other.gpu
            && self.compute_capability == other.compute_capability
            && self.module == other.module
            && self.key == other.key
    }

    /// The row's line, without its newline.
    fn line(&self) -> String {
        let (major, minor) = self.compute_capability;
        let cc = format!("{major}.{minor}");
        let nanos = self.nanos.to_string();
        let fields = [
            &self.kernel,
            &self.gpu,
            &cc,
            &self.driver,
            &self.module,
            &self.key,
            &self.variant,
            &nanos,
        ];
        let mut out = String::new();
        for (i, f) in fields.into_iter().enumerate() {
            if i > 0 {
                out.push('\t');
            }
            escape_into(f, &mut out);
        }
        out
    }
}

/// Why a table could not be read: the line (from 1) and what was wrong with it.
///
/// ```
/// let err = cuda_kernel_objects::tuning::parse_table("not a table").unwrap_err();
/// assert_eq!(err.line, 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tuning table, line {line}: {reason}")]
pub struct TableError {
    /// The line, counted from 1.
    pub line: usize,
    /// What was wrong.
    pub reason: String,
}

/// The table of `choices`, in their order, with its header lines.
///
/// ```
/// let text = cuda_kernel_objects::tuning::render_table(&[]);
/// assert!(text.starts_with(cuda_kernel_objects::tuning::MAGIC));
/// ```
pub fn render_table(choices: &[Choice]) -> String {
    let mut out = format!("{MAGIC}\n{COLUMNS}\n");
    for c in choices {
        out.push_str(&c.line());
        out.push('\n');
    }
    out
}

/// The choices of a table, in its order.
///
/// ```
/// use cuda_kernel_objects::tuning::{MAGIC, parse_table};
/// let rows = parse_table(&format!("{MAGIC}\nsum\tH100\t9.0\t13.0\tnone\tn=4\tb128\t700\n")).unwrap();
/// assert_eq!((rows[0].variant.as_str(), rows[0].compute_capability), ("b128", (9, 0)));
/// ```
pub fn parse_table(text: &str) -> Result<Vec<Choice>, TableError> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, first)) if first.trim_end() == MAGIC => {}
        _ => {
            return Err(TableError {
                line: 1,
                reason: format!("the first line is not `{MAGIC}`"),
            });
        }
    }
    let mut out = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(parse_line(line).map_err(|reason| TableError {
            line: i + 1,
            reason,
        })?);
    }
    Ok(out)
}

/// `into` with every choice of `from` added, replacing the one of the same kernel, GPU
/// model, module and key (`from` wins); sorted, so that a table's text does not depend on the
/// order its entries were found in.
///
/// ```
/// use cuda_kernel_objects::tuning::{Choice, merge};
/// let a = Choice { kernel: "k".into(), gpu: "g".into(), compute_capability: (9, 0),
///     driver: "13.0".into(), module: "m".into(), key: "n=1".into(), variant: "a".into(), nanos: 5 };
/// let b = Choice { variant: "b".into(), nanos: 4, ..a.clone() };
/// assert_eq!(merge(vec![a], vec![b.clone()]), vec![b]);
/// ```
pub fn merge(into: Vec<Choice>, from: Vec<Choice>) -> Vec<Choice> {
    let mut out: Vec<Choice> = into
        .into_iter()
        .filter(|old| !from.iter().any(|new| new.same_place(old)))
        .collect();
    for c in from {
        if let Some(at) = out.iter().position(|o| o.same_place(&c)) {
            out[at] = c;
        } else {
            out.push(c);
        }
    }
    out.sort();
    out
}

/// The text of one cache entry: a table of one row and a checksum line, so that a damaged
/// file is told from a whole one.
///
/// ```
/// use cuda_kernel_objects::tuning::{Choice, decode_entry, encode_entry};
/// let c = Choice { kernel: "k".into(), gpu: "g".into(), compute_capability: (8, 0),
///     driver: "12.8".into(), module: "m".into(), key: "n=1".into(), variant: "a".into(), nanos: 5 };
/// let text = encode_entry(&c);
/// assert_eq!(decode_entry(&text), Some(c));
/// assert_eq!(decode_entry(&text.replace("\ta\t", "\tb\t")), None);
/// ```
pub fn encode_entry(choice: &Choice) -> String {
    let body = render_table(std::slice::from_ref(choice));
    let mut out = body.clone();
    let _ = writeln!(out, "{CHECKSUM}{:016x}", fnv1a(body.as_bytes()));
    out
}

/// The choice an entry's text holds; `None` for anything but a whole, unaltered entry.
///
/// ```
/// assert_eq!(cuda_kernel_objects::tuning::decode_entry("# cuda-kernel tuning table 1\n"), None);
/// ```
pub fn decode_entry(text: &str) -> Option<Choice> {
    let at = text.rfind(CHECKSUM)?;
    let (body, tail) = text.split_at(at);
    let sum = u64::from_str_radix(tail[CHECKSUM.len()..].trim_end(), 16).ok()?;
    if sum != fnv1a(body.as_bytes()) {
        return None;
    }
    let mut rows = parse_table(body).ok()?;
    (rows.len() == 1).then(|| rows.remove(0))
}

/// One row's fields.
fn parse_line(line: &str) -> Result<Choice, String> {
    let fields: Vec<String> = line.split('\t').map(unescape).collect::<Result<_, _>>()?;
    let [kernel, gpu, cc, driver, module, key, variant, nanos] = <[String; 8]>::try_from(fields)
        .map_err(|f| format!("{} fields, where a row has 8 separated by tabs", f.len()))?;
    let compute_capability = cc
        .split_once('.')
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .ok_or_else(|| format!("compute capability `{cc}` is not MAJOR.MINOR"))?;
    let nanos = nanos
        .parse()
        .map_err(|_| format!("nanoseconds `{nanos}` is not a whole number"))?;
    for (name, value) in [("kernel", &kernel), ("gpu", &gpu), ("variant", &variant)] {
        if value.is_empty() {
            return Err(format!("the {name} is empty"));
        }
    }
    Ok(Choice {
        kernel,
        gpu,
        compute_capability,
        driver,
        module,
        key,
        variant,
        nanos,
    })
}

fn escape_into(field: &str, out: &mut String) {
    for c in field.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

fn unescape(field: &str) -> Result<String, String> {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            other => {
                return Err(format!(
                    "`\\{}` is no escape (`\\\\`, `\\t`, `\\n`, `\\r` are)",
                    other.map(String::from).unwrap_or_default()
                ));
            }
        }
    }
    Ok(out)
}

/// FNV-1a, 64 bits: enough to tell a damaged entry from a whole one (not a defence against
/// an adversary, who could as well write a whole entry).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(key: &str, variant: &str) -> Choice {
        Choice {
            kernel: "sum".into(),
            gpu: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: (9, 0),
            driver: "13.0".into(),
            module: "0123456789abcdef".into(),
            key: key.into(),
            variant: variant.into(),
            nanos: 1234,
        }
    }

    #[test]
    fn fields_with_tabs_newlines_and_backslashes_round_trip() {
        let c = choice("shape\t(4,\n5)\\x", "v\\1");
        let text = render_table(std::slice::from_ref(&c));
        assert_eq!(text.lines().count(), 3, "one row on one line: {text}");
        assert_eq!(parse_table(&text).unwrap(), vec![c]);
    }

    #[test]
    fn errors_name_the_line_and_the_fault() {
        let text = format!("{MAGIC}\n\n# note\nsum\tgpu\t9.x\t13.0\tm\tk\tv\t1\n");
        let err = parse_table(&text).unwrap_err();
        assert_eq!(err.line, 4);
        assert!(err.reason.contains("`9.x`"), "{err}");
        let err = parse_table(&format!("{MAGIC}\na\tb\n")).unwrap_err();
        assert!(err.reason.contains("2 fields"), "{err}");
        let err = parse_table(&format!("{MAGIC}\nk\tg\t9.0\td\tm\tkey\tv\tfast\n")).unwrap_err();
        assert!(err.reason.contains("`fast`"), "{err}");
        let err = parse_table(&format!("{MAGIC}\nk\tg\t9.0\td\tm\tk\\q\tv\t1\n")).unwrap_err();
        assert!(err.reason.contains("no escape"), "{err}");
    }

    #[test]
    fn merge_replaces_the_same_place_keeps_others_and_sorts() {
        let old = vec![choice("n=2", "a"), choice("n=1", "a")];
        let new = vec![choice("n=1", "b"), choice("n=3", "c")];
        let merged = merge(old, new);
        let got: Vec<_> = merged
            .iter()
            .map(|c| (c.key.as_str(), c.variant.as_str()))
            .collect();
        assert_eq!(got, [("n=1", "b"), ("n=2", "a"), ("n=3", "c")]);
    }

    #[test]
    fn every_truncation_of_an_entry_is_rejected() {
        let text = encode_entry(&choice("n=1", "a"));
        assert!(decode_entry(&text).is_some());
        for len in 0..text.len() - 1 {
            if text.is_char_boundary(len) {
                assert_eq!(decode_entry(&text[..len]), None, "cut at {len}");
            }
        }
    }
}

//! Integer constants of the CUDA code exported to Rust (`Build::export_constant`, the
//! macro's `constants = [...]`): a tile size a launch depends on, read from the code rather
//! than written twice.
//!
//! With nvcc the compiler evaluates each one (`compile::probe`), so macros, `-D`
//! definitions, `constexpr` variables, enumerators and any constant expression of the unit
//! mean what they mean to the kernels; the answer is cached under the module's inputs, so a
//! warm build runs no probe. Without nvcc (`cargo check`/`cargo doc` with no device code)
//! the `#define`s and `constexpr`/`const` integers of the module's files and of the user's
//! headers are evaluated as written. Every value is checked to fit its Rust type.

use std::path::PathBuf;

use super::request::Source;
use super::unit_inputs::Shared;
use crate::cache::KeyHasher;
use crate::compile::probe::Probe;
use crate::diagnostics::options as msg;
use crate::error::Error;
use crate::front::raw::{split_ident, strip_comments};
use crate::model::built::ExportedConstant;
use crate::model::options::LinkMode;
use crate::model::request::ModuleRequest;

/// Evaluates the request's constants with nvcc, through the cache.
pub(crate) fn with_nvcc(
    shared: &Shared<'_>,
    sources: &[Source],
    tracked: &[PathBuf],
) -> Result<Vec<ExportedConstant>, Error> {
    let req = shared.req;
    if req.constants.is_empty() {
        return Ok(Vec::new());
    }
    let key = cache_key(shared, sources, tracked);
    if let Some(hit) = shared
        .cache
        .and_then(|c| c.read_json::<Vec<ExportedConstant>>("constants", &key))
    {
        return Ok(hit);
    }
    let mut archs: Vec<String> = shared.targets.iter().map(|t| t.virtual_arch()).collect();
    archs.dedup();
    let names: Vec<String> = req.constants.iter().map(|(n, _)| n.clone()).collect();
    let mut values: Vec<(String, u64)> = Vec::new();
    let mut why: Vec<(String, String)> = Vec::new();
    for source in sources {
        let left: Vec<String> = names
            .iter()
            .filter(|n| !values.iter().any(|(v, _)| v == *n))
            .cloned()
            .collect();
        if left.is_empty() {
            break;
        }
        let probe = Probe {
            nvcc: shared.toolkit.nvcc(),
            source: &source.path,
            includes: &source.includes,
            defines: &req.defines,
            flags: shared.flags,
            archs: archs.clone(),
            rdc: shared.mode != LinkMode::Whole,
            debug: shared.debug,
        };
        let asked = probe.evaluate(&left);
        for (name, bits, _) in asked.answered {
            match values.iter().find(|(v, _)| *v == name) {
                Some((_, other)) if *other != bits => {
                    return Err(Error::InvalidOption(msg::constant_differs(
                        &req.name, &name,
                    )));
                }
                Some(_) => {}
                None => values.push((name, bits)),
            }
        }
        why = asked.failed;
    }
    let constants = typed(req, &values, &why)?;
    if let Some(cache) = shared.cache {
        cache.write_json("constants", &key, &constants);
    }
    Ok(constants)
}

/// Evaluates the request's constants from raw `texts`: the module's files and the user
/// headers each includes, each header before the file (as the preprocessor reads them).
pub(crate) fn without_nvcc(
    req: &ModuleRequest,
    texts: &[String],
) -> Result<Vec<ExportedConstant>, Error> {
    if req.constants.is_empty() {
        return Ok(Vec::new());
    }
    let table = Definitions::read(texts, &req.defines);
    let mut values = Vec::new();
    let mut why = Vec::new();
    for (name, _) in &req.constants {
        match table.value(name, 0) {
            Some(v) => values.push((name.clone(), v as u64)),
            None => why.push((name.clone(), msg_raw(name))),
        }
    }
    typed(req, &values, &why)
}

/// Why a constant has no value without nvcc.
fn msg_raw(name: &str) -> String {
    format!(
        "no `#define {name}` or integer `constexpr`/`const` `{name}` with a value computable \
         without nvcc was found in the module's files and headers (a build without device \
         code evaluates only those)"
    )
}

/// The values as their Rust types, each checked to fit; a constant without a value is
/// an error with nvcc's reason.
fn typed(
    req: &ModuleRequest,
    values: &[(String, u64)],
    why: &[(String, String)],
) -> Result<Vec<ExportedConstant>, Error> {
    let mut out = Vec::new();
    for (name, ty) in &req.constants {
        let Some((_, bits)) = values.iter().find(|(n, _)| n == name) else {
            let reason = why
                .iter()
                .find(|(n, _)| n == name)
                .map_or("the compiler gave no value", |(_, w)| w.as_str());
            return Err(Error::InvalidOption(msg::constant_unknown(
                &req.name, name, reason,
            )));
        };
        let value = value_as(*bits, ty);
        if !fits(value, ty) {
            return Err(Error::InvalidOption(msg::constant_out_of_range(
                &req.name, name, value, ty,
            )));
        }
        out.push(ExportedConstant {
            name: name.clone(),
            rust_type: ty.clone(),
            value,
        });
    }
    Ok(out)
}

/// The 64 bits the compiler gave, read as the sign of `ty` says.
fn value_as(bits: u64, ty: &str) -> i128 {
    if ty.starts_with('u') {
        i128::from(bits)
    } else {
        i128::from(bits as i64)
    }
}

/// Whether `value` fits the Rust integer type `ty` (`isize`/`usize` as 64-bit).
fn fits(value: i128, ty: &str) -> bool {
    let (lo, hi): (i128, i128) = match ty {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        _ => (0, u64::MAX.into()),
    };
    (lo..=hi).contains(&value)
}

/// The cache key of a module's constants: what the compiler would see.
fn cache_key(shared: &Shared<'_>, sources: &[Source], tracked: &[PathBuf]) -> String {
    let mut k = KeyHasher::new("constants");
    k.field(shared.toolkit.version().to_string().as_bytes());
    for t in shared.targets {
        k.field(t.to_string().as_bytes());
    }
    for f in shared.flags {
        k.field(f.as_bytes());
    }
    for (n, v) in &shared.req.defines {
        k.field(n.as_bytes())
            .field(v.as_deref().unwrap_or("\0").as_bytes());
    }
    for (n, t) in &shared.req.constants {
        k.field(n.as_bytes()).field(t.as_bytes());
    }
    for s in sources {
        k.field(s.text.as_bytes());
        for i in &s.includes {
            k.field(i.as_os_str().as_encoded_bytes());
        }
    }
    for f in tracked {
        k.field(&std::fs::read(f).unwrap_or_default());
    }
    k.finish()
}

/// Object-like `#define`s and `constexpr`/`const` integers, by name, with their
/// expressions as written (later definitions win, as `-D` comes first).
struct Definitions(Vec<(String, String)>);

impl Definitions {
    fn read(texts: &[String], defines: &[(String, Option<String>)]) -> Definitions {
        let mut table: Vec<(String, String)> = defines
            .iter()
            .map(|(n, v)| (n.clone(), v.clone().unwrap_or_else(|| "1".into())))
            .collect();
        for text in texts {
            for line in text.lines() {
                let line = line.trim_start();
                if let Some(rest) = line.strip_prefix('#') {
                    let (directive, rest) = split_ident(rest);
                    let (name, body) = split_ident(rest);
                    // Object-like definitions only: `#define F(x)` takes arguments.
                    if directive == "define" && !name.is_empty() && !body.starts_with('(') {
                        table.push((name.to_owned(), strip_comments(body)));
                    }
                } else if let Some((name, expr)) = constexpr_integer(line) {
                    table.push((name, expr));
                }
            }
        }
        Definitions(table)
    }

    /// The value of `name`, its names resolved in turn (at most 16 deep).
    fn value(&self, name: &str, depth: usize) -> Option<i64> {
        let (_, expr) = self.0.iter().rev().find(|(n, _)| n == name)?;
        if depth > 16 {
            return None;
        }
        // The evaluator reads integer suffixes (`16u`, `1UL`) itself.
        crate::front::expr::eval_pp(expr, &mut |n, defined| {
            if defined {
                Some(i64::from(self.0.iter().any(|(d, _)| d == n)))
            } else {
                self.value(n, depth + 1)
            }
        })
    }
}

/// `constexpr int TILE = 16;`, `static const unsigned N = 4 * TILE;` on one line: the name
/// and the expression.
fn constexpr_integer(line: &str) -> Option<(String, String)> {
    let stmt = line.split(';').next()?;
    let (lhs, rhs) = stmt.split_once('=')?;
    let words: Vec<&str> = lhs.split_whitespace().collect();
    if !words.iter().any(|w| matches!(*w, "constexpr" | "const")) {
        return None;
    }
    const INTEGER_WORDS: [&str; 16] = [
        "constexpr",
        "const",
        "static",
        "inline",
        "__device__",
        "__constant__",
        "__host__",
        "int",
        "unsigned",
        "signed",
        "long",
        "short",
        "char",
        "size_t",
        "int64_t",
        "uint32_t",
    ];
    let (name, spec) = words.split_last()?;
    if !spec
        .iter()
        .all(|w| INTEGER_WORDS.contains(w) || w.ends_with("_t"))
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    Some(((*name).to_owned(), rhs.trim().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Definitions {
        Definitions::read(&[text.to_owned()], &[("EXTRA".into(), Some("3".into()))])
    }

    #[test]
    fn raw_definitions_are_evaluated_through_each_other() {
        let t = table(
            "#define TILE 16u // a tile\n#define HALF (TILE / 2)\n#define F(x) x\n\
             constexpr int STEPS = HALF * EXTRA;\nstatic const unsigned long BIG = 1UL << 40;\n\
             #if defined(TILE)\n#define HAS 1\n#endif\n",
        );
        assert_eq!(t.value("TILE", 0), Some(16));
        assert_eq!(t.value("HALF", 0), Some(8));
        assert_eq!(t.value("STEPS", 0), Some(24));
        assert_eq!(t.value("BIG", 0), Some(1 << 40));
        assert_eq!(t.value("F", 0), None);
        assert_eq!(t.value("MISSING", 0), None);
    }

    #[test]
    fn values_are_checked_against_their_types() {
        assert!(fits(255, "u8") && !fits(256, "u8") && !fits(-1, "u32"));
        assert!(fits(-128, "i8") && !fits(-129, "i8"));
        assert_eq!(value_as(u64::MAX, "i64"), -1);
        assert_eq!(value_as(u64::MAX, "u64"), i128::from(u64::MAX));
    }
}

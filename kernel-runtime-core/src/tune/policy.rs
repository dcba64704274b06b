//! What the environment asks of tuning: `KERNEL_TUNE_RETUNE` (time again, ignoring the
//! embedded table and the cache) and `KERNEL_TUNE_PIN` (use this variant, time nothing).

use crate::env;

/// The environment's requests, read when a tuner settles a key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Policy {
    /// `KERNEL_TUNE_RETUNE=1`.
    pub retune: bool,
    /// `KERNEL_TUNE_PIN`: `(kernel, variant)` pairs.
    pub pins: Vec<(String, String)>,
}

impl Policy {
    /// The policy the environment sets.
    pub(crate) fn from_env() -> Result<Policy, String> {
        let pins = match env::var_os("KERNEL_TUNE_PIN") {
            Some(v) => parse_pins(&v.to_string_lossy())?,
            None => Vec::new(),
        };
        Ok(Policy {
            retune: env::flag("KERNEL_TUNE_RETUNE"),
            pins,
        })
    }

    /// The variant pinned for `kernel`, if any.
    pub(crate) fn pin(&self, kernel: &str) -> Option<&str> {
        self.pins
            .iter()
            .rev()
            .find(|(k, _)| k == kernel)
            .map(|(_, v)| v.as_str())
    }
}

/// `sum=block256,gemm=tile128x64`: comma-separated `kernel=variant` pairs (spaces around
/// them ignored; a later pair for the same kernel wins).
pub(crate) fn parse_pins(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
                out.push((k.trim().to_owned(), v.trim().to_owned()));
            }
            _ => {
                return Err(format!(
                    "KERNEL_TUNE_PIN: `{part}` is not `kernel=variant` (pairs are separated by commas)"
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_parse_and_the_last_wins() {
        let p = Policy {
            retune: false,
            pins: parse_pins(" sum = b256 , gemm=t128x64,sum=b512,").unwrap(),
        };
        assert_eq!(p.pin("sum"), Some("b512"));
        assert_eq!(p.pin("gemm"), Some("t128x64"));
        assert_eq!(p.pin("scan"), None);
    }

    #[test]
    fn a_malformed_pin_names_itself() {
        let err = parse_pins("sum=b256,gemm").unwrap_err();
        assert!(err.contains("`gemm`"), "{err}");
        assert!(parse_pins("=x").is_err());
        assert!(parse_pins("x=").is_err());
    }
}

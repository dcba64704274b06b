//! Itanium symbols demangled (`cpp_demangle`) and split into a qualified name, template
//! arguments and parameter types (`Demangled`), and the integer a template argument prints
//! as: what the matching of kernels to symbols (`names`), the type model's class template
//! instances and the probe's answers read.

pub(super) const ANON: &str = "(anonymous namespace)";
pub(super) const ANON_IDENT: &str = "__anonymous_namespace__";

/// A demangled function name split into its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Demangled {
    /// Qualified name without template arguments (`ops::k15`).
    pub name: String,
    /// Template arguments as printed (`float`, `4`, `true`).
    pub template_args: Vec<String>,
    /// Parameter types as printed (`float const*`, `unsigned int`).
    pub params: Vec<String>,
}

/// Demangles an Itanium symbol and splits it; `None` for plain C names or text the
/// demangler rejects.
pub fn demangle(symbol: &str) -> Option<Demangled> {
    if !symbol.starts_with("_Z") {
        return None;
    }
    let sym = cpp_demangle::Symbol::new(symbol).ok()?;
    let text = sym
        .demangle(&cpp_demangle::DemangleOptions::default())
        .ok()?
        .replace(ANON, ANON_IDENT);
    split(&text)
}

/// Splits `[ret ]name[<args>](params)` at top-level brackets.
fn split(text: &str) -> Option<Demangled> {
    let text = text.trim();
    let open = matching_open(text, text.len().checked_sub(1)?, '(', ')')?;
    let params = split_list(&text[open + 1..text.len() - 1]);
    let params = if params == ["void"] {
        Vec::new()
    } else {
        params
    };
    let mut head = text[..open].trim_end();
    let mut template_args = Vec::new();
    if head.ends_with('>') {
        let lt = matching_open(head, head.len() - 1, '<', '>')?;
        template_args = split_list(&head[lt + 1..head.len() - 1]);
        head = &head[..lt];
    }
    let name = head.rsplit(' ').next()?.to_string();
    Some(Demangled {
        name,
        template_args,
        params,
    })
}

/// Index of the bracket opening the group that closes at `close`.
fn matching_open(text: &str, close: usize, open_c: char, close_c: char) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(close).copied() != Some(close_c as u8) {
        return None;
    }
    let mut depth = 0i32;
    for i in (0..=close).rev() {
        match bytes[i] as char {
            c if c == close_c => depth += 1,
            c if c == open_c => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn split_list(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(s[start..].trim().to_string());
    }
    out
}

/// An integer printed as a template argument (`4`, `8u`, `-1`, `true`, `(char)65`).
pub(crate) fn int_value(text: &str) -> Option<i64> {
    let t = text.trim();
    let t = if t.starts_with('(') {
        t.split_once(')').map(|(_, v)| v)?
    } else {
        t
    };
    match t {
        "true" => Some(1),
        "false" => Some(0),
        _ => super::expr::eval_const(t.trim_end_matches(['u', 'U', 'l', 'L'])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_namespaces_templates_and_values() {
        let d =
            split("void ops::detail::k16<ops::detail::Acc, 8u>(ops::detail::Acc, float*)").unwrap();
        assert_eq!(d.name, "ops::detail::k16");
        assert_eq!(d.template_args, ["ops::detail::Acc", "8u"]);
        assert_eq!(d.params.len(), 2);
        assert_eq!(split("k02()").unwrap().params, Vec::<String>::new());
        assert!(split("garbage").is_none());
    }

    #[test]
    fn template_values_compare_as_integers() {
        assert_eq!(int_value("8u"), Some(8));
        assert_eq!(int_value("(char)65"), Some(65));
        assert_eq!(int_value("-1"), Some(-1));
        assert_eq!(int_value("true"), Some(1));
    }

    #[test]
    fn demangle_reads_name_template_args_and_params() {
        let d = demangle("_ZN3ops3k15IfEEvPT_PKS1_j").unwrap();
        assert_eq!(d.name, "ops::k15");
        assert_eq!(d.template_args, ["float"]);
        assert_eq!(d.params, ["float*", "float const*", "unsigned int"]);
        assert!(demangle("saxpy").is_none());
    }
}

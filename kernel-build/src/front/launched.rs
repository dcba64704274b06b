//! Template kernels instantiated by the host code that launches them
//! (`k<float, 4><<<grid, block>>>(...)`), read from the host stub file nvcc writes for
//! each device pass (`<stem>.compute_90.cudafe1.stub.c`, kept with `--keep`).
//!
//! Kernel libraries rarely instantiate explicitly: a launch in host code instantiates the
//! template, and only the compiler knows which instantiations exist. The stub file has one
//! line per launched kernel, with the symbol, the qualified name with its template
//! arguments and the parameter types:
//!
//! ```text
//! static void __device_stub__Z5scaleIfLi4EEvPT_S0_i(float *__par0, float __par1, int __par2){
//!     ...__cudaLaunch(((char *)((void ( *)(float *, float, int))scale<float, (int)4> )), 0U);}
//! ```
//!
//! Each becomes an explicit instantiation with its symbol already known; one that cannot be
//! typed is skipped (the kernel is then left out of the module), never an error.

use super::lexer::lex;
use super::linemap::LineMap;
use super::parse::{Item, parse};
use crate::model::ModuleInfo;

/// One kernel the host code launches: its symbol, its qualified name with template
/// arguments, its parameter types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launched {
    /// The mangled symbol (`_Z5scaleIfLi4EEvPT_S0_i`).
    pub symbol: String,
    /// The qualified name as the stub spells it (`ns::scale<float, (int)4>`), anonymous
    /// namespaces left out.
    pub name: String,
    /// The parameter types (`float *`).
    pub params: Vec<String>,
}

const STUB: &str = "static void __device_stub_";
const LAUNCH: &str = "__cudaLaunch(((char *)((void ( *)(";

/// Every kernel the stub file launches, templates or not.
pub(crate) fn launched_all(stub: &str) -> Vec<Launched> {
    scan(stub, true)
}

/// Every template kernel the stub file launches.
pub fn launched_templates(stub: &str) -> Vec<Launched> {
    scan(stub, false)
}

fn scan(stub: &str, plain_too: bool) -> Vec<Launched> {
    let mut out: Vec<Launched> = Vec::new();
    // One segment per stub function (its body may span several lines).
    for rest in stub.split(STUB).skip(1) {
        let Some(symbol) = rest
            .split('(')
            .next()
            .filter(|s| s.starts_with("_Z") && !s.starts_with(super::linemap::LAYOUT_TABLE_SYMBOL))
        else {
            continue;
        };
        let Some(launch) = rest.find(LAUNCH).map(|i| &rest[i + LAUNCH.len()..]) else {
            continue;
        };
        let Some(close) = matching_paren(launch) else {
            continue;
        };
        let types = &launch[..close];
        let Some(name) = launch[close + 1..].strip_prefix(')') else {
            continue;
        };
        let Some(name) = name.split(" )), ").next() else {
            continue;
        };
        let name = without_casts(
            &squeeze(name)
                .replace("_NV_ANON_NAMESPACE::", "")
                .replace("< ", "<"),
        );
        if (!plain_too && !name.contains('<')) || out.iter().any(|l| l.symbol == symbol) {
            continue;
        }
        out.push(Launched {
            symbol: symbol.to_string(),
            name,
            params: split_top(types)
                .into_iter()
                .map(|p| squeeze(p.trim()))
                .filter(|p| !p.is_empty() && p != "void")
                .collect(),
        });
    }
    out
}

/// The launched instantiations as parsed explicit instantiations (with their symbols),
/// ready for the analysis; entries that do not parse are left out.
pub(crate) fn instantiation_items(stub: &str) -> Vec<Item> {
    let mut items = Vec::new();
    for l in launched_templates(stub) {
        let text = format!(
            "template __global__ void {}({});",
            l.name,
            l.params.join(", ")
        );
        let lexed = lex(&text);
        let map = LineMap::identity("<launch>", &text);
        let (parsed, diags) = parse(&text, &lexed.tokens, &map);
        if !diags.is_empty() {
            continue;
        }
        for item in parsed {
            if let Item::Kernel(mut k) = item {
                k.symbol = Some(l.symbol.clone());
                k.loc = None;
                items.push(Item::Kernel(k));
            }
        }
    }
    items
}

/// The stub's casts of value arguments dropped: `(int)4` → `4`, `(bool)1` → `true`.
fn without_casts(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('(') {
        let (before, after) = rest.split_at(open);
        out.push_str(before);
        let close = after.find(')').unwrap_or(0);
        let ty = &after[1..close.max(1)];
        let is_cast = close > 1
            && ty
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '_');
        let value = after[close.max(1)..].get(1..).unwrap_or("");
        if is_cast && value.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            let end = value
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
                .unwrap_or(value.len());
            let v = &value[..end];
            out.push_str(match (ty, v) {
                ("bool", "0") => "false",
                ("bool", _) => "true",
                _ => v,
            });
            rest = &value[end..];
        } else {
            out.push('(');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    out
}

/// Spaces collapsed (`ns::k<    ::__half>` → `ns::k< ::__half>`).
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The index of the `)` closing the group whose `(` was just passed.
fn matching_paren(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(i),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Splits at commas outside brackets.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// C++ kernels that are not templates get their symbol from the host stub when host
/// code launches them: exactly one launched kernel of that qualified name and arity.
/// (The others are matched against the images' symbols by [`crate::verify::verify()`].)
pub(super) fn symbols_from_stub(info: &mut ModuleInfo, stub: &str) {
    let launched = launched_all(stub);
    for k in info
        .kernels
        .iter_mut()
        .filter(|k| k.symbol.is_empty() && k.template_args.is_empty())
    {
        let shown = k.name.replace("(anonymous namespace)::", "");
        let mut found = launched.iter().filter(|l| {
            l.name.trim_start_matches("::") == shown && l.params.len() == k.params.len()
        });
        if let (Some(one), None) = (found.next(), found.next()) {
            k.symbol = one.symbol.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_anonymous_namespaces_and_function_arguments() {
        let stub = "\
static void __device_stub__ZN2ns37_GLOBAL__N__5fc709a4_5_t2_cu_18f5cf2a4anonILi3EEEvPf(float *__par0){__cudaLaunchPrologue(1);__cudaSetupArgSimple(__par0, 0UL);__cudaLaunch(((char *)((void ( *)(float *))ns::_NV_ANON_NAMESPACE::anon<(int)3> )), 0U);}namespace ns{
static void __device_stub__ZN2ns1kI6__halfEEvPT_(struct __half *__par0){__cudaLaunchPrologue(1);__cudaLaunch(((char *)((void ( *)(struct __half *))ns::k<    ::__half> )), 0U);}namespace ns{
static void __device_stub__Z5applyIXadL_Z5twicefEEEvPfi(float *__par0, int __par1){__cudaLaunch(((char *)((void ( *)(float *, int))apply<& ::twice> )), 0U);}
static void __device_stub__Z3allPf(float *__par0){__cudaLaunch(((char *)((void ( *)(float *))all )), 0U);}
";
        let got = launched_templates(stub);
        let names: Vec<&str> = got.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(
            names,
            ["ns::anon<3>", "ns::k<::__half>", "apply<& ::twice>"]
        );
        assert_eq!(got[1].params, ["struct __half *"]);
        assert_eq!(got[2].params, ["float *", "int"]);
        let items = instantiation_items(stub);
        assert_eq!(items.len(), 3, "{items:?}");
    }

    #[test]
    fn casts_of_values_are_dropped_and_bodies_span_lines() {
        assert_eq!(
            without_casts("k<float, (bool)1, (int)-4, (unsigned long)8UL>"),
            "k<float, true, -4, 8UL>"
        );
        assert_eq!(without_casts("k<(bool)0>"), "k<false>");
        let stub = "static void __device_stub__Z1kILb1EEvi(int __par0){ const float *__T0;\n\
                    __cudaLaunch(((char *)((void ( *)(int))k<(bool)1> )), 0U);}";
        let got = launched_templates(stub);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].name, "k<true>");
    }

    #[test]
    fn a_device_stub_gives_symbol_name_and_params() {
        let stub = "static void __device_stub__Z5scaleIfLi4EEvPT_S0_i(float *__par0, float __par1, int __par2)\
            {__cudaLaunchPrologue(3);__cudaLaunch(((char *)((void ( *)(float *, float, int))scale<float, (int)4> )), 0U);}";
        let k = launched_templates(stub);
        assert_eq!(k[0].symbol, "_Z5scaleIfLi4EEvPT_S0_i");
        assert_eq!(k[0].name, "scale<float, 4>");
        assert_eq!(k[0].params, ["float *", "float", "int"]);
    }
}

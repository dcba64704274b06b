//! Kernels tuned over declared variants, as the front end sees them: the kernel a
//! declaration names found among a text's declarations (a template with its parameters, or
//! a plain kernel), and each variant's instantiation.
//!
//! The build compiles an instantiation as `template __global__ decltype(k<128, 4>)
//! k<128, 4>;`, which needs no parameter types, in a section after the user's text that the
//! reading of nvcc's views leaves out (it is no user's file). Both readings, with nvcc and
//! without, get the same instantiations here instead, as explicit instantiations spelled
//! from the template's own parameters, so the two give the same kernels.

use std::collections::HashMap;

use super::lexer::lex;
use super::linemap::LineMap;
use super::parse::{Item, KernelSyn, parse};
use super::types::replace_words;

/// One explicit instantiation the build adds for a tuned kernel's variant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instance {
    /// The template, qualified (`ops::gemm`).
    pub template: String,
    /// Its arguments in the template's order, as the declaration writes them.
    pub args: Vec<String>,
}

impl Instance {
    /// `ops::gemm<64, 128>`.
    pub fn name(&self) -> String {
        format!("{}<{}>", self.template, self.args.join(", "))
    }

    /// The line nvcc compiles it from.
    pub fn line(&self) -> String {
        let name = self.name();
        format!("template __global__ decltype({name}) {name};")
    }
}

/// What a text declares under a tuned kernel's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A template kernel: its qualified name, its template parameters and its parameters'
    /// names, in order.
    Template {
        /// `ops::gemm`.
        qualified: String,
        /// Its template parameters.
        tparams: Vec<String>,
        /// Its parameters' names (empty for an unnamed one).
        params: Vec<String>,
    },
    /// A kernel that is no template.
    Plain {
        /// `ops::scale`.
        qualified: String,
        /// Its parameters' names (empty for an unnamed one).
        params: Vec<String>,
    },
}

/// The kernel named `name` (qualified or not) among `items`: a template (its last
/// declaration) before a plain kernel.
pub fn find(items: &[Item], name: &str) -> Option<Found> {
    let kernels = items.iter().filter_map(|i| match i {
        Item::Kernel(k) if !k.is_instantiation && named(k, name) => Some(k),
        _ => None,
    });
    let mut plain = None;
    let mut template = None;
    for k in kernels {
        let params = k
            .params
            .iter()
            .map(|p| p.name.clone().unwrap_or_default())
            .collect();
        match &k.template {
            Some(tparams) => {
                template = Some(Found::Template {
                    qualified: qualified(k),
                    tparams: tparams.iter().map(|t| t.name.clone()).collect(),
                    params,
                });
            }
            None => {
                plain = Some(Found::Plain {
                    qualified: qualified(k),
                    params,
                });
            }
        }
    }
    template.or(plain)
}

/// The qualified names of every kernel and template kernel among `items`.
pub fn kernel_names(items: &[Item]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if let Item::Kernel(k) = i
            && !k.is_instantiation
        {
            let q = qualified(k);
            if !out.contains(&q) {
                out.push(q);
            }
        }
    }
    out
}

fn qualified(k: &KernelSyn) -> String {
    let mut parts = k.namespace.clone();
    parts.push(k.name.clone());
    parts.join("::")
}

/// Whether `k` is the kernel `name` names: its qualified name, or its own name when `name`
/// is not qualified.
fn named(k: &KernelSyn, name: &str) -> bool {
    let name = name.trim_start_matches("::");
    qualified(k) == name || (!name.contains("::") && k.name == name)
}

/// `instances` as explicit instantiations the analysis reads, each spelled from its
/// template's parameters with the arguments put in; one whose template is not among
/// `items`, or that does not parse, is left out (its variant then has no typed kernel,
/// which the build reports).
pub(crate) fn instantiation_items(items: &[Item], instances: &[Instance]) -> Vec<Item> {
    let mut out = Vec::new();
    for inst in instances {
        let Some(tmpl) = items.iter().rev().find_map(|i| match i {
            Item::Kernel(k)
                if !k.is_instantiation && k.template.is_some() && qualified(k) == inst.template =>
            {
                Some(k)
            }
            _ => None,
        }) else {
            continue;
        };
        let tparams = tmpl.template.as_deref().unwrap_or(&[]);
        let map: HashMap<String, String> = tparams
            .iter()
            .zip(&inst.args)
            .map(|(t, a)| (t.name.clone(), a.clone()))
            .collect();
        let params: Vec<String> = tmpl
            .params
            .iter()
            .map(|p| replace_words(&p.ty.written, &map))
            .collect();
        let text = format!(
            "template __global__ void {}({});",
            inst.name(),
            params.join(", ")
        );
        let lexed = lex(&text);
        let lines = LineMap::identity("<tuned>", &text);
        let (parsed, diags) = parse(&text, &lexed.tokens, &lines);
        if !diags.is_empty() {
            continue;
        }
        for item in parsed {
            if let Item::Kernel(mut k) = item {
                k.loc = tmpl.loc.clone();
                for (p, q) in k.params.iter_mut().zip(&tmpl.params) {
                    p.name = q.name.clone();
                    p.loc = q.loc.clone();
                }
                out.push(Item::Kernel(k));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(text: &str) -> Vec<Item> {
        let lexed = lex(text);
        parse(text, &lexed.tokens, &LineMap::identity("k.cu", text)).0
    }

    const SOURCE: &str = "namespace ops {\n\
        template <typename T, int BLOCK>\n\
        __global__ void sum(const T* __restrict__ x, T* out, int n) {}\n\
        __global__ void scale(float* y, float a, int n) {}\n\
        }\n";

    #[test]
    fn a_template_and_a_plain_kernel_are_found_by_name() {
        let items = items(SOURCE);
        assert_eq!(
            find(&items, "sum"),
            Some(Found::Template {
                qualified: "ops::sum".into(),
                tparams: vec!["T".into(), "BLOCK".into()],
                params: vec!["x".into(), "out".into(), "n".into()],
            })
        );
        assert!(matches!(
            find(&items, "ops::scale"),
            Some(Found::Plain { .. })
        ));
        assert_eq!(find(&items, "other::sum"), None);
        assert_eq!(kernel_names(&items), ["ops::sum", "ops::scale"]);
    }

    #[test]
    fn an_instance_is_spelled_from_its_templates_parameters() {
        let items = items(SOURCE);
        let inst = Instance {
            template: "ops::sum".into(),
            args: vec!["float".into(), "256".into()],
        };
        assert_eq!(
            inst.line(),
            "template __global__ decltype(ops::sum<float, 256>) ops::sum<float, 256>;"
        );
        let made = instantiation_items(&items, std::slice::from_ref(&inst));
        let [Item::Kernel(k)] = made.as_slice() else {
            panic!("{made:?}")
        };
        assert!(k.is_instantiation);
        assert_eq!(k.namespace, ["ops"]);
        let written: Vec<&str> = k.params.iter().map(|p| p.ty.written.as_str()).collect();
        assert_eq!(written, ["const float* __restrict__", "float*", "int"]);
        assert_eq!(k.params[1].name.as_deref(), Some("out"));
    }
}

//! Merging the models of several device views into one: the union of their kernels
//! (in source order), structs and globals, with every disagreement between two views
//! reported.

use crate::diagnostics::{Diagnostics, front as msg};
use crate::model::{Kernel, ModuleInfo, Param};

use super::types::c_spelling;

/// A kernel's identity across views: its display name and which of the kernels of
/// that name it is (overloads keep their order in every view).
fn keys(kernels: &[Kernel]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::with_capacity(kernels.len());
    for k in kernels {
        let nth = out.iter().filter(|(n, _)| *n == k.name).count();
        out.push((k.name.clone(), nth));
    }
    out
}

/// The parameter list as a message shows it: `(const float* x @ 0+8, int n @ 8+4)`.
pub(crate) fn signature(params: &[Param]) -> String {
    let items: Vec<String> = params
        .iter()
        .map(|p| {
            let name = p
                .name
                .as_deref()
                .map(|n| format!(" {n}"))
                .unwrap_or_default();
            format!(
                "{}{name} @ {}+{}",
                c_spelling(&p.ty),
                p.layout.offset,
                p.layout.size
            )
        })
        .collect();
    format!("({})", items.join(", "))
}

fn same_params(a: &[Param], b: &[Param]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.ty == y.ty && x.layout == y.layout && x.grid_constant == y.grid_constant
        })
}

/// Merges `(arch, model)` pairs, first view first, into one model whose kernels are
/// in source order.
pub(super) fn merge(views: Vec<(String, ModuleInfo)>, diags: &mut Diagnostics) -> ModuleInfo {
    let mut out = ModuleInfo::default();
    // For every merged kernel, struct and global: the view that declared it first.
    let mut kernel_from: Vec<((String, usize), String)> = Vec::new();
    let mut struct_from: Vec<String> = Vec::new();
    let mut global_from: Vec<String> = Vec::new();
    for (arch, mut info) in views {
        for u in std::mem::take(&mut info.untyped) {
            if !out
                .untyped
                .iter()
                .any(|x| x.name == u.name && x.symbol == u.symbol)
            {
                out.untyped.push(u);
            }
        }
        let view_keys = keys(&info.kernels);
        for (kernel, key) in info.kernels.into_iter().zip(view_keys) {
            let Some(i) = kernel_from.iter().position(|(k, _)| *k == key) else {
                out.kernels.push(kernel);
                kernel_from.push((key, arch.clone()));
                continue;
            };
            let first = &out.kernels[i];
            if !same_params(&first.params, &kernel.params) || first.linkage != kernel.linkage {
                diags.push(
                    msg::kernel_differs_between_targets(
                        &kernel.name,
                        &kernel_from[i].1,
                        &signature(&first.params),
                        &arch,
                        &signature(&kernel.params),
                    )
                    .at(kernel.loc.clone()),
                );
            }
        }
        for s in info.structs {
            match out.structs.iter().position(|x| x.name == s.name) {
                Some(i) if out.structs[i].fields != s.fields || out.structs[i].size != s.size => {
                    diags.push(
                        msg::struct_differs_between_targets(&s.name, &struct_from[i], &arch)
                            .at(s.loc.clone()),
                    );
                }
                Some(_) => {}
                None => {
                    out.structs.push(s);
                    struct_from.push(arch.clone());
                }
            }
        }
        // An enumeration whose values differ between targets keeps the first target's: its
        // values convert with a check either way.
        for e in info.enums {
            if !out.enums.iter().any(|x| x.name == e.name) {
                out.enums.push(e);
            }
        }
        for g in info.globals {
            match out.globals.iter().position(|x| x.name == g.name) {
                Some(i) if out.globals[i].ty != g.ty || out.globals[i].size != g.size => {
                    let first = &out.globals[i];
                    diags.push(
                        msg::global_differs_between_targets(
                            &g.name,
                            &global_from[i],
                            first.size,
                            &arch,
                            g.size,
                        )
                        .at(g.loc.clone()),
                    );
                }
                Some(_) => {}
                None => {
                    out.globals.push(g);
                    global_from.push(arch.clone());
                }
            }
        }
        for h in info.host_functions {
            if !out.host_functions.iter().any(|x| x.name == h.name) {
                out.host_functions.push(h);
            }
        }
        for n in info.notes {
            if !out.notes.contains(&n) {
                out.notes.push(n);
            }
        }
        for n in info.skipped {
            if !out.skipped.contains(&n) {
                out.skipped.push(n);
            }
        }
        if out.stopped.is_none() {
            out.stopped = info.stopped;
        }
    }
    in_source_order(&mut out.kernels);
    out
}

/// Sorts kernels by where they are declared (files ranked by first appearance), when
/// every kernel has a location; kernels at the same place keep their order.
fn in_source_order(kernels: &mut [Kernel]) {
    let mut files: Vec<&str> = Vec::new();
    let mut ranks = Vec::with_capacity(kernels.len());
    for k in kernels.iter() {
        let Some(loc) = &k.loc else { return };
        let file = match files.iter().position(|f| *f == loc.file) {
            Some(i) => i,
            None => {
                files.push(&loc.file);
                files.len() - 1
            }
        };
        ranks.push((file, loc.line, loc.column));
    }
    let mut order: Vec<usize> = (0..kernels.len()).collect();
    order.sort_by_key(|&i| ranks[i]);
    let sorted: Vec<Kernel> = order.iter().map(|&i| kernels[i].clone()).collect();
    kernels.clone_from_slice(&sorted);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::{FrontInput, analyze_parts};

    fn model(text: &str) -> ModuleInfo {
        let input = FrontInput {
            preprocessed: None,
            ..FrontInput::raw_only("k.cu", text)
        };
        let (info, d) = analyze_parts(&input);
        assert!(d.is_empty(), "{d}");
        info
    }

    fn names(info: &ModuleInfo) -> Vec<&str> {
        info.kernels.iter().map(|k| k.name.as_str()).collect()
    }

    #[test]
    fn union_keeps_source_order() {
        let a = model("extern \"C\" __global__ void a(){}\n\nextern \"C\" __global__ void c(){}");
        let b = model(
            "extern \"C\" __global__ void a(){}\nextern \"C\" __global__ void b(){}\n\
             extern \"C\" __global__ void c(){}\nextern \"C\" __global__ void d(){}",
        );
        let mut d = Diagnostics::new();
        let m = merge(
            vec![("compute_75".into(), a), ("compute_90".into(), b)],
            &mut d,
        );
        assert!(d.is_empty(), "{d}");
        assert_eq!(names(&m), ["a", "b", "c", "d"]);
    }

    #[test]
    fn a_kernel_laid_out_differently_is_an_error_naming_both_targets() {
        let a = model("extern \"C\" __global__ void k(float x, int n){}");
        let b = model("extern \"C\" __global__ void k(double x, int n){}");
        let mut d = Diagnostics::new();
        merge(
            vec![("compute_80".into(), a), ("compute_90".into(), b)],
            &mut d,
        );
        let text = d.to_string();
        assert!(
            text.contains("kernel `k` has different parameters for compute_80 and compute_90"),
            "{text}"
        );
        assert!(
            text.contains("compute_80: (float x @ 0+4, int n @ 4+4)"),
            "{text}"
        );
        assert!(
            text.contains("compute_90: (double x @ 0+8, int n @ 8+4)"),
            "{text}"
        );
    }

    #[test]
    fn structs_and_globals_merge_and_conflict() {
        let a = model(
            "struct P { float x; };\n__constant__ float c[4];\nextern \"C\" __global__ void k(P p){}",
        );
        let b = model(
            "struct P { float x; };\n__constant__ float c[8];\n__device__ int only;\nextern \"C\" __global__ void k(P p){}",
        );
        let mut d = Diagnostics::new();
        let m = merge(
            vec![("compute_80".into(), a), ("compute_90".into(), b)],
            &mut d,
        );
        assert_eq!(m.structs.len(), 1);
        assert_eq!(m.globals.len(), 2);
        assert!(
            d.to_string()
                .contains("global `c` is 16 bytes for compute_80 but 32 bytes for compute_90"),
            "{d}"
        );
    }
}

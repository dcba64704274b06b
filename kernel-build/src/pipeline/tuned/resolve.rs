//! Tuned kernels found in the module's source before nvcc runs: each declaration's kernel
//! read from the raw text (with the user's headers), its template parameters matched to
//! the axes, the instantiation of every variant planned, and the rules' names resolved to
//! axes and the kernel's parameters. The raw reading is what a build without nvcc reads;
//! both builds plan the same instantiations from it.

use super::request::variants;
use super::rule;
use super::section::Section;
use crate::diagnostics::tune::TuneFault;
use crate::error::Error;
use crate::front::read_raw;
use crate::front::tuned::{Found, Instance, find, kernel_names};
use crate::front::{FrontInput, parse::Item};
use crate::model::request::{ModuleRequest, TuneRequest};
use crate::model::{RuleOp, TunedRule};
use crate::pipeline::request::Source;

/// The module's tuned kernels, found and planned.
#[derive(Clone, Debug, Default)]
pub(crate) struct Resolved {
    pub kernels: Vec<ResolvedKernel>,
}

/// One tuned kernel, found and planned.
#[derive(Clone, Debug)]
pub(crate) struct ResolvedKernel {
    /// The kernel as the declaration names it.
    pub kernel: String,
    /// The source (its path) that declares it.
    pub source: std::path::PathBuf,
    pub axes: Vec<String>,
    pub variants: Vec<Planned>,
    pub grid: Vec<TunedRule>,
    pub block: Vec<TunedRule>,
    pub shared: Option<TunedRule>,
    /// The kernel's parameters the rules read, in the order `RuleOp::Arg` counts them.
    pub ints: Vec<String>,
}

/// One variant, planned.
#[derive(Clone, Debug)]
pub(crate) struct Planned {
    pub name: String,
    pub values: Vec<String>,
    pub ints: Vec<i64>,
    /// Its instantiation (none for a plain kernel).
    pub instance: Option<Instance>,
}

impl Resolved {
    /// The instantiations the source `source` gets, each once, in declaration order.
    pub(crate) fn instances(&self, source: &Source) -> Vec<Instance> {
        let mut out: Vec<Instance> = Vec::new();
        for k in self.kernels.iter().filter(|k| k.source == source.path) {
            for v in &k.variants {
                if let Some(i) = &v.instance
                    && !out.contains(i)
                {
                    out.push(i.clone());
                }
            }
        }
        out
    }

    /// The wrapper's section of the source `source`.
    pub(crate) fn section(&self, source: &Source) -> Section {
        Section::new(self.instances(source))
    }
}

/// Finds and plans every tuned kernel of `req` in `sources`; every problem at once.
pub(crate) fn resolve(req: &ModuleRequest, sources: &[Source]) -> Result<Resolved, Error> {
    if req.tuned.is_empty() {
        return Ok(Resolved::default());
    }
    let archs = super::super::targets::raw_arch_numbers(req);
    let mut read: Vec<Vec<Item>> = Vec::new();
    for source in sources {
        let here = source.is_file.then(|| source.path.parent()).flatten();
        let headers = super::super::runtime::user_headers(&source.text, here, &source.includes)
            .map(|(h, _)| h)
            .unwrap_or_default();
        let input = FrontInput {
            display_name: &source.display_name,
            raw: &source.text,
            preprocessed: None,
            main_file: &source.path,
            user_dirs: &source.user_dirs,
            host_stub: None,
            headers: &headers,
            tuned: &[],
        };
        let mut items = read_raw::declarations(&input, None);
        if source.text.contains("__CUDA_ARCH__") {
            for a in &archs {
                items.extend(read_raw::declarations(&input, Some(i64::from(*a) * 10)));
            }
        }
        read.push(items);
    }
    let mut problems: Vec<(&str, TuneFault)> = Vec::new();
    let mut kernels = Vec::new();
    if req.runtime != crate::model::options::RuntimeCompile::Off {
        problems.push((&req.tuned[0].kernel, TuneFault::CompiledAtRunTime));
    } else {
        for t in &req.tuned {
            match plan(req, t, sources, &read) {
                Ok(k) => kernels.push(k),
                Err(faults) => problems.extend(faults.into_iter().map(|f| (t.kernel.as_str(), f))),
            }
        }
    }
    if !problems.is_empty() {
        let said: Vec<String> = problems.iter().map(|(k, f)| f.message(k)).collect();
        return Err(Error::InvalidOption(said.join("\n")));
    }
    Ok(Resolved { kernels })
}

/// One declaration planned against the sources' declarations.
fn plan(
    req: &ModuleRequest,
    t: &TuneRequest,
    sources: &[Source],
    read: &[Vec<Item>],
) -> Result<ResolvedKernel, Vec<TuneFault>> {
    let k = &t.kernel;
    let v = variants(t).map_err(|(_, fault)| vec![fault])?;
    let Some((source, found)) = read
        .iter()
        .enumerate()
        .find_map(|(i, items)| find(items, k).map(|f| (i, f)))
    else {
        let near: Vec<String> = read.iter().flat_map(|items| kernel_names(items)).collect();
        let module = req.name.clone();
        return Err(vec![TuneFault::NoKernel { module, near }]);
    };
    let mut problems = Vec::new();
    let (qualified, tparams, params) = match found {
        Found::Template {
            qualified,
            tparams,
            params,
        } => (qualified, Some(tparams), params),
        Found::Plain { qualified, params } => (qualified, None, params),
    };
    for tp in tparams.iter().flatten() {
        if !v.axes.contains(tp) {
            let param = tp.clone();
            problems.push(TuneFault::MissingAxis { param });
        }
    }
    let is_template_axis = |a: &str| tparams.as_ref().is_some_and(|t| t.iter().any(|tp| tp == a));
    // The rules, their names resolved.
    let mut ints: Vec<String> = Vec::new();
    let mut read_names: Vec<String> = Vec::new();
    let mut rules = |which: &'static str, text: &Option<String>, dims: bool| -> Vec<TunedRule> {
        let Some(text) = text else {
            return Vec::new();
        };
        let Ok(exprs) = rule::read(text, dims) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for e in &exprs {
            rule::names(e, &mut read_names);
            let mut name = |n: &str| -> Option<RuleOp> {
                if let Some(a) = v.axes.iter().position(|a| a == n) {
                    return u8::try_from(a).ok().map(RuleOp::Axis);
                }
                if params.iter().any(|p| p == n) {
                    let at = ints.iter().position(|i| i == n).unwrap_or_else(|| {
                        ints.push(n.to_owned());
                        ints.len() - 1
                    });
                    return u8::try_from(at).ok().map(RuleOp::Arg);
                }
                None
            };
            match rule::program(e, &mut name) {
                Ok(ops) => out.push(ops),
                Err(Ok(name)) => {
                    let params = params.iter().filter(|p| !p.is_empty()).cloned().collect();
                    let text = text.clone();
                    problems.push(TuneFault::UnknownName {
                        rule: which,
                        text,
                        name,
                        params,
                    });
                }
                Err(Err(why)) => {
                    let text = text.clone();
                    problems.push(TuneFault::BadRule {
                        rule: which,
                        text,
                        why,
                    });
                }
            }
        }
        // One text for every dimension: a rule is shown as the declaration wrote it.
        let dims_text: Vec<String> = if exprs.len() == 1 {
            vec![text.clone()]
        } else {
            split_top(text)
        };
        out.into_iter()
            .zip(dims_text)
            .map(|(ops, text)| TunedRule { text, ops })
            .collect()
    };
    let grid = rules("grid", &t.grid, true);
    let block = rules("block", &t.block, true);
    let shared = rules("shared", &t.shared, false).into_iter().next();
    for a in &v.axes {
        if !is_template_axis(a) && !read_names.contains(a) {
            let axis = a.clone();
            problems.push(TuneFault::UnusedAxis { axis });
        }
    }
    let mut variants_out = Vec::new();
    for ((row, name), ints) in v.rows.iter().zip(&v.names).zip(&v.ints) {
        let mut row_ints = Vec::new();
        for ((a, value), int) in v.axes.iter().zip(row).zip(ints) {
            if int.is_none() && !is_template_axis(a) {
                let (axis, value) = (a.clone(), value.clone());
                problems.push(TuneFault::LaunchValue { axis, value });
            }
            row_ints.push(int.unwrap_or(0));
        }
        let instance = tparams.as_ref().map(|tps| Instance {
            template: qualified.clone(),
            args: tps
                .iter()
                .map(|tp| {
                    v.axes
                        .iter()
                        .position(|a| a == tp)
                        .map(|i| row[i].trim().to_owned())
                        .unwrap_or_default()
                })
                .collect(),
        });
        variants_out.push(Planned {
            name: name.clone(),
            values: row.clone(),
            ints: row_ints,
            instance,
        });
    }
    if !problems.is_empty() {
        problems.dedup();
        return Err(problems);
    }
    Ok(ResolvedKernel {
        kernel: k.clone(),
        source: sources[source].path.clone(),
        axes: v.axes,
        variants: variants_out,
        grid,
        block,
        shared,
        ints,
    })
}

/// `(a, b)` as `["a", "b"]`: a tuple's elements at its top level.
fn split_top(text: &str) -> Vec<String> {
    let inner = text
        .trim()
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(text);
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(inner[start..i].trim().to_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = inner[start..].trim();
    if !last.is_empty() {
        out.push(last.to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::request::SourceInput;

    const SOURCE: &str = "template <int BLOCK, int ITEMS>\n\
        __global__ void block_sum(const float* x, float* total, int n) {}\n\
        __global__ void scale(float* y, float a, unsigned n) {}\n";

    fn source() -> Source {
        Source {
            path: "k.cu".into(),
            display_name: "k.cu".into(),
            text: SOURCE.into(),
            user_dirs: Vec::new(),
            includes: Vec::new(),
            is_file: false,
            line_origin: None,
        }
    }

    fn request(t: TuneRequest) -> ModuleRequest {
        let mut req = ModuleRequest::new(
            "sums",
            SourceInput::Inline {
                text: SOURCE.into(),
            },
        );
        req.tune(t).unwrap();
        req
    }

    fn sum() -> TuneRequest {
        TuneRequest {
            kernel: "block_sum".into(),
            axes: vec![
                ("ITEMS".into(), vec!["1".into(), "4".into()]),
                ("BLOCK".into(), vec!["128".into(), "256".into()]),
            ],
            grid: Some("n.div_ceil(BLOCK * ITEMS)".into()),
            block: Some("BLOCK".into()),
            ..TuneRequest::default()
        }
    }

    #[test]
    fn a_templates_variants_are_instantiated_in_its_parameters_order() {
        let r = resolve(&request(sum()), &[source()]).unwrap();
        let k = &r.kernels[0];
        assert_eq!(k.variants[1].name, "items1_block256");
        assert_eq!(
            k.variants[1].instance.as_ref().unwrap().name(),
            "block_sum<256, 1>"
        );
        assert_eq!(k.ints, ["n"]);
        assert_eq!(
            k.grid[0].ops,
            [
                RuleOp::Arg(0),
                RuleOp::Axis(1),
                RuleOp::Axis(0),
                RuleOp::Mul,
                RuleOp::DivCeil
            ]
        );
        assert_eq!(r.instances(&source()).len(), 4);
    }

    #[test]
    fn a_plain_kernels_axes_are_launch_values() {
        let t = TuneRequest {
            kernel: "scale".into(),
            axes: vec![("THREADS".into(), vec!["128".into(), "512".into()])],
            grid: Some("(n.div_ceil(THREADS), 1)".into()),
            block: Some("THREADS".into()),
            ..TuneRequest::default()
        };
        let r = resolve(&request(t), &[source()]).unwrap();
        let k = &r.kernels[0];
        assert!(k.variants[1].instance.is_none());
        assert_eq!(k.variants[1].ints, [512]);
        assert_eq!(k.grid.len(), 2);
        assert_eq!(k.grid[0].text, "n.div_ceil(THREADS)");
        assert!(r.instances(&source()).is_empty());
    }

    #[test]
    fn what_the_source_does_not_give_is_reported_at_once() {
        let missing = TuneRequest {
            kernel: "blocksum".into(),
            ..sum()
        };
        let err = resolve(&request(missing), &[source()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a kernel of module `sums`"), "{err}");
        assert!(err.contains("`block_sum`, `scale`"), "{err}");
        let t = TuneRequest {
            axes: vec![
                ("BLOCK".into(), vec!["128".into()]),
                ("EXTRA".into(), vec!["1".into()]),
            ],
            grid: Some("m / BLOCK".into()),
            ..sum()
        };
        let err = resolve(&request(t), &[source()]).unwrap_err().to_string();
        assert!(
            err.contains("template parameter `ITEMS` has no axis"),
            "{err}"
        );
        assert!(
            err.contains("reads `m`, which is neither an axis nor an integer parameter"),
            "{err}"
        );
        assert!(
            err.contains("axis `EXTRA` is neither a template parameter"),
            "{err}"
        );
    }
}

//! The reduction generator: per-block partials (a grid-stride map-and-combine per thread,
//! vector loads when the map reads slices as `name[i]` only, then a block reduction by warp
//! shuffles), and one block combining the partials and applying the post-map.

use crate::describe::{Access, GenerateError, KernelInfo, Reduction};
use crate::expr;
use crate::loops;
use crate::text::Writer;

/// Writes `{name}_partial` and `{name}_final`, or the mistakes in the expressions.
pub(crate) fn write(r: &Reduction, w: &mut Writer) -> Result<KernelInfo, Vec<GenerateError>> {
    let mut errors = Vec::new();
    crate::describe::check_params(
        &r.label,
        &r.params,
        crate::describe::RESERVED_OPERATORS,
        &mut errors,
    );
    let mut error = |part: &'static str, message: String| {
        errors.push(GenerateError {
            kernel: r.label.clone(),
            part,
            message,
        });
    };
    if r.params.iter().any(|p| p.access == Access::Out) {
        error(
            "parameters",
            "a reduction reads its slices (`&[T]`); its result is returned".into(),
        );
    }
    if !r.params.iter().any(|p| p.access == Access::In) {
        error(
            "parameters",
            "a reduction needs an input slice (its length is the element count)".into(),
        );
    }
    let slices = crate::describe::slice_uses(&r.params);
    let map = expr::read(
        &r.map,
        &slices,
        &crate::describe::scalar_names(&r.params, &["i", "n"]),
        false,
    )
    .map_err(|e| error("map", e))
    .ok();
    let scalars = crate::describe::scalar_names(&r.params, &[]);
    let ab: Vec<&str> = scalars.iter().copied().chain(["a", "b"]).collect();
    let reduce = expr::read(&r.reduce, &[], &ab, false)
        .map_err(|e| error("reduce", e))
        .ok();
    let identity = expr::read(&r.identity, &[], &scalars, false)
        .map_err(|e| error("identity", e))
        .ok();
    let with_r: Vec<&str> = scalars.iter().copied().chain(["r", "n"]).collect();
    let post = match &r.post {
        Some(p) => expr::read(p, &[], &with_r, false)
            .map_err(|e| error("post", e))
            .ok()
            .map(Some),
        None => Some(None),
    };
    let (Some(map), Some(reduce), Some(identity), Some(post)) = (map, reduce, identity, post)
    else {
        return Err(errors);
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    let unsafe_reason = [&map, &reduce, &identity]
        .into_iter()
        .chain(post.as_ref())
        .find_map(|reading| reading.unsafe_reason.clone());
    let acc = r.output.c_name();
    let scalar_params: Vec<String> = r
        .params
        .iter()
        .filter(|p| p.access == Access::Scalar)
        .map(crate::describe::Param::c_decl)
        .collect();
    let scalar_args: Vec<&str> = r
        .params
        .iter()
        .filter(|p| p.access == Access::Scalar)
        .map(|p| p.name.as_str())
        .collect();
    let op = format!("kg_{}_op", r.name);
    let ident_fn = format!("kg_{}_identity", r.name);
    // The operator and the identity, as functions of the scalars.
    w.push(&format!(
        "struct {op} {{\n    {extra_fields}\n    __device__ __forceinline__ {acc} operator()({acc} a, {acc} b) const {{\n        return ({acc})("
        ,
        extra_fields = scalar_params
            .iter()
            .map(|d| format!("{d};"))
            .collect::<Vec<_>>()
            .join(" "),
    ));
    w.user(&r.label, "reduce", &r.reduce);
    w.push(&format!(
        "        );\n    }}\n}};\n__device__ __forceinline__ {acc} {ident_fn}({}) {{\n    return ({acc})(",
        scalar_params.join(", ")
    ));
    w.user(&r.label, "identity", &r.identity);
    w.push("    );\n}");
    let width = loops::vector_width(&r.params, unsafe_reason.is_none());
    let params: Vec<String> = r
        .params
        .iter()
        .map(crate::describe::Param::c_decl)
        .collect();
    let init_op = format!("{op} kg_op{{{}}};", scalar_args.join(", "));
    let ident_call = format!("{ident_fn}({})", scalar_args.join(", "));
    w.push(&format!(
        "extern \"C\" __global__ void __launch_bounds__({block}) {name}_partial({params}, {acc}* __restrict__ kg_partials, long long n) {{\n\
         \x20   const {init_op}\n\
         \x20   const {acc} kg_identity = {ident_call};\n\
         \x20   {acc} kg_acc = kg_identity;\n{head}",
        block = crate::geometry::BLOCK,
        name = r.name,
        params = params.join(", "),
        head = loops::HEAD,
    ));
    // The scalar loop first in the text (a compiler's first error shows the map as written),
    // then the vector loop over the aligned whole vectors.
    let ins: Vec<_> = r.params.iter().filter(|p| p.access == Access::In).collect();
    if width > 1 {
        w.push(&loops::split(ins.iter().copied(), width));
    }
    w.push(loops::SCALAR_LOOP);
    w.push(&format!("        kg_acc = kg_op(kg_acc, ({acc})("));
    w.user(&r.label, "map", &r.map);
    w.push("        ));\n    }");
    if width > 1 {
        w.push(&loops::vector_loop(width));
        for p in ins
            .iter()
            .filter(|p| map.accesses.iter().any(|(_, n)| *n == p.name))
        {
            w.push(&loops::vector_of(p, width, true));
        }
        w.push(&loops::lane_loop(width));
        w.push(&format!("                kg_acc = kg_op(kg_acc, ({acc})("));
        let body = expr::substitute(&r.map, &map, loops::lane_access);
        w.user(&r.label, "map", &body);
        w.push("                ));\n            }\n        }\n    }");
    }
    w.push(&format!(
        "    kg_acc = kg_block_reduce(kg_acc, kg_op, kg_identity);\n\
         \x20   if (threadIdx.x == 0) kg_partials[blockIdx.x] = kg_acc;\n\
         }}\n\
         extern \"C\" __global__ void __launch_bounds__({fb}) {name}_final({scalars}{sep}const {acc}* __restrict__ kg_partials, int kg_count, {acc}* __restrict__ kg_out, long long n) {{\n\
         \x20   const {init_op}\n\
         \x20   const {acc} kg_identity = {ident_call};\n\
         \x20   {acc} kg_acc = kg_identity;\n\
         \x20   for (int kg_j = threadIdx.x; kg_j < kg_count; kg_j += blockDim.x) kg_acc = kg_op(kg_acc, kg_partials[kg_j]);\n\
         \x20   kg_acc = kg_block_reduce(kg_acc, kg_op, kg_identity);\n\
         \x20   if (threadIdx.x == 0) {{\n\
         \x20       const {acc} r = kg_acc;\n\
         \x20       (void)n;\n\
         \x20       kg_out[0] = ({acc})(",
        fb = crate::geometry::FINAL_BLOCK,
        name = r.name,
        scalars = scalar_params.join(", "),
        sep = if scalar_params.is_empty() { "" } else { ", " },
    ));
    w.user(&r.label, "post", r.post.as_deref().unwrap_or("r"));
    w.push("        );\n    }\n}\n");
    Ok(KernelInfo {
        entry_points: vec![format!("{}_partial", r.name), format!("{}_final", r.name)],
        width,
        unsafe_reason,
    })
}

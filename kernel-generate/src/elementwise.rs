//! The elementwise generator: a grid-stride loop over `i < n`, with a vector path (loads
//! and stores of `width` elements) when the body touches slices as `name[i]` only and every
//! slice is aligned for it at run time.

use crate::expr::{self, Reading};
use crate::text::Writer;
use crate::{Access, Elementwise, GenerateError, KernelInfo};

/// Writes the kernel, or the mistakes in its body.
pub(crate) fn write(k: &Elementwise, w: &mut Writer) -> Result<KernelInfo, Vec<GenerateError>> {
    let mut errors = Vec::new();
    crate::check_params(
        &k.label,
        &k.params,
        crate::RESERVED_ELEMENTWISE,
        &mut errors,
    );
    let error = |message: String| GenerateError {
        kernel: k.label.clone(),
        part: "body",
        message,
    };
    if !k.params.iter().any(|p| p.access != Access::Scalar) {
        errors.push(GenerateError {
            kernel: k.label.clone(),
            part: "parameters",
            message: "an elementwise kernel needs a slice (its length is the element count)".into(),
        });
    }
    let slices = crate::slice_uses(&k.params);
    let names = crate::scalar_names(&k.params, &["i", "n"]);
    let reading = match expr::read(&k.body, &slices, &names, true) {
        Ok(r) => r,
        Err(e) => {
            errors.push(error(e));
            return Err(errors);
        }
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    let width = vector_width(&k.params, reading.unsafe_reason.is_none());
    let params: Vec<String> = k.params.iter().map(crate::Param::c_decl).collect();
    w.push(&format!(
        "extern \"C\" __global__ void __launch_bounds__({block}) {name}({params}, long long n) {{\n\
         \x20   const long long kg_stride = (long long)gridDim.x * blockDim.x;\n\
         \x20   const long long kg_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20   long long kg_done = 0;",
        block = crate::geometry::BLOCK,
        name = k.name,
        params = params.join(", "),
    ));
    // The scalar loop (the tail, or everything when a slice is not aligned) comes first in
    // the text, so that a compiler's first error about the body shows the body as written.
    if width > 1 {
        w.push(&format!(
            "    const bool kg_aligned = {};\n\
             \x20   if (kg_aligned) kg_done = n / {width} * {width};",
            aligned(&k.params, width)
        ));
    }
    w.push(
        "    for (long long kg_i = kg_done + kg_first; kg_i < n; kg_i += kg_stride) {\n\
         \x20       const long long i = kg_i;",
    );
    w.user(&k.label, "body", &terminated(&k.body));
    w.push("    }");
    if width > 1 {
        vector_path(k, &reading, width, w);
    }
    w.push("}\n");
    Ok(KernelInfo {
        entry_points: vec![k.name.clone()],
        width,
        unsafe_reason: reading.unsafe_reason,
    })
}

/// The body ending with `;`.
pub(crate) fn terminated(body: &str) -> String {
    let t = body.trim_end();
    if t.ends_with(';') || t.ends_with('}') {
        t.to_owned()
    } else {
        format!("{t};")
    }
}

/// The vector path: whole vectors of `width` elements while every slice is aligned.
fn vector_path(k: &Elementwise, reading: &Reading, width: u32, w: &mut Writer) {
    let slices: Vec<_> = k
        .params
        .iter()
        .filter(|p| p.access != Access::Scalar)
        .collect();
    w.push(&format!(
        "    if (kg_aligned) {{\n\
         \x20       const long long kg_chunks = n / {width};\n\
         \x20       for (long long kg_j = kg_first; kg_j < kg_chunks; kg_j += kg_stride) {{"
    ));
    for p in &slices {
        let ty = format!("kg_vec<{}, {width}>", p.dtype.c_name());
        // An output is loaded unless every element of it is assigned before any read.
        let load = reading.read.contains(&p.name)
            || !(reading.straight && reading.assigned_first.contains(&p.name))
            || p.access == Access::In;
        let used = reading.accesses.iter().any(|(_, n)| *n == p.name);
        if !used {
            continue;
        }
        if load {
            w.push(&format!(
                "            {ty} kg_{n} = reinterpret_cast<const {ty}*>({n})[kg_j];",
                n = p.name
            ));
        } else {
            w.push(&format!("            {ty} kg_{};", p.name));
        }
    }
    w.push(&format!(
        "#pragma unroll\n\
         \x20           for (int kg_k = 0; kg_k < {width}; ++kg_k) {{\n\
         \x20               const long long i = kg_j * {width} + kg_k;\n\
         \x20               (void)i;"
    ));
    let body = expr::substitute(&k.body, reading, |name| format!("kg_{name}.v[kg_k]"));
    w.user(&k.label, "body", &terminated(&body));
    w.push("            }");
    for p in &slices {
        if reading.written.contains(&p.name) {
            w.push(&format!(
                "            reinterpret_cast<kg_vec<{t}, {width}>*>({n})[kg_j] = kg_{n};",
                t = p.dtype.c_name(),
                n = p.name
            ));
        }
    }
    w.push("        }\n    }");
}

/// Elements per vector load: 16 bytes of the widest slice, or 1 (no vector path) when the
/// expressions may touch slices other than at `[i]`.
pub(crate) fn vector_width(params: &[crate::Param], only_at_i: bool) -> u32 {
    let widest = params
        .iter()
        .filter(|p| p.access != Access::Scalar)
        .map(|p| p.dtype.size())
        .max()
        .unwrap_or(1);
    if only_at_i { (16 / widest) as u32 } else { 1 }
}

/// The condition under which every slice of `params` is aligned for vectors of `width`
/// elements.
pub(crate) fn aligned<'a>(
    params: impl IntoIterator<Item = &'a crate::Param>,
    width: u32,
) -> String {
    params
        .into_iter()
        .filter(|p| p.access != Access::Scalar)
        .map(|p| {
            format!(
                "(reinterpret_cast<unsigned long long>({}) % {}) == 0",
                p.name,
                width as usize * p.dtype.size()
            )
        })
        .collect::<Vec<_>>()
        .join(" && ")
}

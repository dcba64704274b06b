//! The elementwise generator: a grid-stride loop over `i < n`, with a vector path (loads
//! and stores of `width` elements) when the body touches slices as `name[i]` only and every
//! slice is aligned for it at run time.

use crate::describe::{Access, Elementwise, GenerateError, KernelInfo, Param};
use crate::expr::{self, Reading};
use crate::loops;
use crate::text::Writer;

/// Writes the kernel, or the mistakes in its body.
pub(crate) fn write(k: &Elementwise, w: &mut Writer) -> Result<KernelInfo, Vec<GenerateError>> {
    let mut errors = Vec::new();
    crate::describe::check_params(
        &k.label,
        &k.params,
        crate::describe::RESERVED_ELEMENTWISE,
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
    let slices = crate::describe::slice_uses(&k.params);
    let names = crate::describe::scalar_names(&k.params, &["i", "n"]);
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
    let width = loops::vector_width(&k.params, reading.unsafe_reason.is_none());
    let params: Vec<String> = k
        .params
        .iter()
        .map(crate::describe::Param::c_decl)
        .collect();
    w.push(&format!(
        "extern \"C\" __global__ void __launch_bounds__({block}) {name}({params}, long long n) {{\n{head}",
        block = crate::geometry::BLOCK,
        name = k.name,
        params = params.join(", "),
        head = loops::HEAD,
    ));
    let slices: Vec<&Param> = k
        .params
        .iter()
        .filter(|p| p.access != Access::Scalar)
        .collect();
    if width > 1 {
        w.push(&loops::split(slices.iter().copied(), width));
    }
    w.push(loops::SCALAR_LOOP);
    w.user(&k.label, "body", &terminated(&k.body));
    w.push("    }");
    if width > 1 {
        vector_path(k, &slices, &reading, width, w);
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
fn vector_path(k: &Elementwise, slices: &[&Param], reading: &Reading, width: u32, w: &mut Writer) {
    w.push(&loops::vector_loop(width));
    for p in slices {
        if !reading.accesses.iter().any(|(_, n)| *n == p.name) {
            continue;
        }
        // An output is loaded unless every element of it is assigned before any read.
        let load = p.access == Access::In
            || reading.read.contains(&p.name)
            || !(reading.straight && reading.assigned_first.contains(&p.name));
        w.push(&loops::vector_of(p, width, load));
    }
    w.push(&loops::lane_loop(width));
    let body = expr::substitute(&k.body, reading, loops::lane_access);
    w.user(&k.label, "body", &terminated(&body));
    w.push("            }");
    for p in slices {
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

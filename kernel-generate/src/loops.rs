//! The grid-stride loop that elementwise and reduction kernels are written around, in the
//! order the text has it: the loop's variables, the split between the vector part and the
//! scalar tail, the scalar loop (first in the text, so that a compiler's first error about a
//! user's expression shows it as written), then the loop over whole vectors and its lanes.
//! The callers write what each index does; these write everything around it.

use crate::describe::{Access, Param};

/// Elements per vector load: 16 bytes of the widest slice, or 1 (no vector path) when the
/// expressions may touch slices other than at `[i]`.
pub(crate) fn vector_width(params: &[Param], only_at_i: bool) -> u32 {
    let widest = params
        .iter()
        .filter(|p| p.access != Access::Scalar)
        .map(|p| p.dtype.size())
        .max()
        .unwrap_or(1);
    if only_at_i { (16 / widest) as u32 } else { 1 }
}

/// The loop's variables: its stride, this thread's first index, how far the vector part
/// reaches (`kg_done`, 0 until [`split`] says otherwise).
pub(crate) const HEAD: &str = "    const long long kg_stride = (long long)gridDim.x * blockDim.x;\n\
    \x20   const long long kg_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n\
    \x20   long long kg_done = 0;";

/// `kg_aligned` (every slice of `slices` aligned for vectors of `width`) and, when it
/// holds, the vector part's reach in `kg_done`.
pub(crate) fn split<'a>(slices: impl IntoIterator<Item = &'a Param>, width: u32) -> String {
    let aligned = slices
        .into_iter()
        .map(|p| {
            format!(
                "(reinterpret_cast<unsigned long long>({}) % {}) == 0",
                p.name,
                width as usize * p.dtype.size()
            )
        })
        .collect::<Vec<_>>()
        .join(" && ");
    format!(
        "    const bool kg_aligned = {aligned};\n\
         \x20   if (kg_aligned) kg_done = n / {width} * {width};"
    )
}

/// Opens the scalar loop over `kg_done + kg_first, ...` with the index `i`.
pub(crate) const SCALAR_LOOP: &str = "    for (long long kg_i = kg_done + kg_first; kg_i < n; kg_i += kg_stride) {\n\
     \x20       const long long i = kg_i;";

/// Opens the loop over whole vectors (`kg_j`) while every slice is aligned.
pub(crate) fn vector_loop(width: u32) -> String {
    format!(
        "    if (kg_aligned) {{\n\
         \x20       const long long kg_chunks = n / {width};\n\
         \x20       for (long long kg_j = kg_first; kg_j < kg_chunks; kg_j += kg_stride) {{"
    )
}

/// Vector `kg_j` of slice `p` into `kg_{name}` (`load`: read from memory; otherwise left
/// for the lanes to fill).
pub(crate) fn vector_of(p: &Param, width: u32, load: bool) -> String {
    let ty = format!("kg_vec<{}, {width}>", p.dtype.c_name());
    let n = &p.name;
    match (load, p.access) {
        (true, Access::In) => {
            format!("            const {ty} kg_{n} = reinterpret_cast<const {ty}*>({n})[kg_j];")
        }
        (true, _) => format!("            {ty} kg_{n} = reinterpret_cast<const {ty}*>({n})[kg_j];"),
        (false, _) => format!("            {ty} kg_{n};"),
    }
}

/// Opens the loop over the lanes (`kg_k`) of vector `kg_j`, with the index `i`.
pub(crate) fn lane_loop(width: u32) -> String {
    format!(
        "#pragma unroll\n\
         \x20           for (int kg_k = 0; kg_k < {width}; ++kg_k) {{\n\
         \x20               const long long i = kg_j * {width} + kg_k;\n\
         \x20               (void)i;"
    )
}

/// A `name[i]` access in the lanes: lane `kg_k` of the slice's vector.
pub(crate) fn lane_access(name: &str) -> String {
    format!("kg_{name}.v[kg_k]")
}

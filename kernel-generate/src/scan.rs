//! The scan generator: one pass over the data. Each block takes the next tile (an atomic
//! counter, so a tile only waits on tiles that already run), scans it in shared memory and
//! registers (a thread's items, then warp shuffles, then the warps' totals), publishes its
//! aggregate, and takes its prefix from its predecessors by decoupled look-back: warp 0 reads
//! 32 predecessors' status at a time and stops at the nearest one that has its full prefix.

use crate::describe::{GenerateError, KernelInfo, Scan};
use crate::expr;
use crate::geometry::{BLOCK, scan_items};
use crate::text::Writer;

/// Writes the scan kernel, or the mistakes in its expressions.
pub(crate) fn write(s: &Scan, w: &mut Writer) -> Result<KernelInfo, Vec<GenerateError>> {
    let mut errors = Vec::new();
    let params = [
        crate::describe::Param::new(s.input.clone(), s.dtype, crate::describe::Access::In),
        crate::describe::Param::new(s.output.clone(), s.dtype, crate::describe::Access::Out),
    ];
    crate::describe::check_params(
        &s.label,
        &params,
        crate::describe::RESERVED_OPERATORS,
        &mut errors,
    );
    let op = expr::read(&s.op, &[], &["a", "b"], false).map_err(|message| GenerateError {
        kernel: s.label.clone(),
        part: "op",
        message,
    });
    let identity = expr::read(&s.identity, &[], &[], false).map_err(|message| GenerateError {
        kernel: s.label.clone(),
        part: "identity",
        message,
    });
    let (op, identity) = match (op, identity) {
        (Ok(o), Ok(i)) if errors.is_empty() => (o, i),
        (o, i) => {
            errors.extend(o.err());
            errors.extend(i.err());
            return Err(errors);
        }
    };
    let t = s.dtype.c_name();
    let name = &s.name;
    let items = scan_items(s.dtype);
    let warps = BLOCK / 32;
    // Registers for four blocks per SM: the look-back's latency is hidden by other tiles.
    let min_blocks = 4;
    w.push(&format!(
        "struct kg_{name}_op {{\n    __device__ __forceinline__ {t} operator()({t} a, {t} b) const {{\n        return ({t})("
    ));
    w.user(&s.label, "op", &s.op);
    w.push(&format!(
        "        );\n    }}\n}};\n__device__ __forceinline__ {t} kg_{name}_identity() {{\n    return ({t})("
    ));
    w.user(&s.label, "identity", &s.identity);
    let status = if s.dtype.size() <= 4 {
        // Flag and value in one 64-bit word: one store publishes both, one load reads both,
        // no fence between them.
        format!(
            r#"struct kg_{name}_status {{
    volatile unsigned long long* words;
    __device__ __forceinline__ void publish(long long tile, {t} v, unsigned int flag) const {{
        unsigned int bits = 0u;
        memcpy(&bits, &v, sizeof({t}));
        words[tile] = ((unsigned long long)flag << 32) | bits;
    }}
    __device__ __forceinline__ unsigned int wait(long long j, {t}* v) const {{
        unsigned long long w;
        do {{ w = words[j]; }} while ((w >> 32) == 0ull);
        const unsigned int bits = (unsigned int)w;
        memcpy(v, &bits, sizeof({t}));
        return (unsigned int)(w >> 32);
    }}
}};
"#
        )
    } else {
        // Values of 8 bytes: the value, a fence, then the flag; readers the reverse.
        format!(
            r#"struct kg_{name}_status {{
    volatile unsigned int* flags;
    {t}* aggs;
    {t}* prefixes;
    __device__ __forceinline__ void publish(long long tile, {t} v, unsigned int flag) const {{
        if (flag == 1u) aggs[tile] = v; else prefixes[tile] = v;
        __threadfence();
        flags[tile] = flag;
    }}
    __device__ __forceinline__ unsigned int wait(long long j, {t}* v) const {{
        unsigned int f;
        do {{ f = flags[j]; }} while (f == 0u);
        __threadfence();
        *v = f == 2u ? __ldcg(prefixes + j) : __ldcg(aggs + j);
        return f;
    }}
}};
"#
        )
    };
    let status_init = if s.dtype.size() <= 4 {
        format!(
            "const kg_{name}_status kg_status{{reinterpret_cast<volatile unsigned long long*>(kg_scratch + 1)}};"
        )
    } else {
        format!(
            "const long long kg_tiles = (n + TILE - 1) / TILE;\n    {t}* kg_aggs = reinterpret_cast<{t}*>(kg_scratch + 1 + (kg_tiles + 1) / 2);\n    const kg_{name}_status kg_status{{reinterpret_cast<volatile unsigned int*>(kg_scratch + 1), kg_aggs, kg_aggs + kg_tiles}};"
        )
    };
    let store = if s.exclusive {
        "(k == 0 ? kg_prefix : kg_op(kg_prefix, kg_v[k > 0 ? k - 1 : 0]))"
    } else {
        "kg_op(kg_prefix, kg_v[k])"
    };
    w.push(&format!(
        r#"    );
}}
{status}extern "C" __global__ void __launch_bounds__({BLOCK}, {min_blocks}) {name}(const {t}* __restrict__ kg_in, {t}* __restrict__ kg_out, unsigned long long* __restrict__ kg_scratch, long long n) {{
    constexpr int ITEMS = {items};
    constexpr int TILE = {BLOCK} * ITEMS;
    const kg_{name}_op kg_op{{}};
    const {t} kg_identity = kg_{name}_identity();
    unsigned int* kg_counter = reinterpret_cast<unsigned int*>(kg_scratch);
    {status_init}
    __shared__ alignas(16) unsigned char kg_items_raw[(TILE + TILE / 32) * sizeof({t})];
    __shared__ alignas(16) unsigned char kg_totals_raw[{warps} * sizeof({t})];
    __shared__ alignas(16) unsigned char kg_prefix_raw[sizeof({t})];
    __shared__ unsigned int kg_tile_s;
    {t}* kg_items = reinterpret_cast<{t}*>(kg_items_raw);
    {t}* kg_totals = reinterpret_cast<{t}*>(kg_totals_raw);
    {t}* kg_tile_prefix = reinterpret_cast<{t}*>(kg_prefix_raw);
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    if (t == 0) kg_tile_s = atomicAdd(kg_counter, 1u);
    __syncthreads();
    const long long kg_tile = kg_tile_s;
    const long long kg_base = kg_tile * TILE;
    // Each warp moves its own 32 * ITEMS elements between striped (coalesced) and blocked
    // (thread t holds t * ITEMS + k) order through its own padded part of shared memory.
    {t}* kg_mine = kg_items + warp * (32 * ITEMS + ITEMS);
    const long long kg_wbase = kg_base + (long long)warp * 32 * ITEMS;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {{
        const int j = k * 32 + lane;
        const long long g = kg_wbase + j;
        kg_mine[j + j / 32] = g < n ? kg_in[g] : kg_identity;
    }}
    __syncwarp();
    {t} kg_v[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {{
        const int j = lane * ITEMS + k;
        kg_v[k] = kg_mine[j + j / 32];
    }}
#pragma unroll
    for (int k = 1; k < ITEMS; ++k) kg_v[k] = kg_op(kg_v[k - 1], kg_v[k]);
    const {t} kg_inclusive = kg_warp_scan(kg_v[ITEMS - 1], kg_op);
    {t} kg_exclusive = __shfl_up_sync(0xffffffffu, kg_inclusive, 1);
    if (lane == 0) kg_exclusive = kg_identity;
    if (lane == 31) kg_totals[warp] = kg_inclusive;
    __syncthreads();
    if (warp == 0) {{
        {t} kg_aggregate = kg_totals[0];
#pragma unroll
        for (int k = 1; k < {warps}; ++k) kg_aggregate = kg_op(kg_aggregate, kg_totals[k]);
        {t} kg_before = kg_identity;
        if (kg_tile == 0) {{
            if (lane == 0) kg_status.publish(0, kg_aggregate, 2u);
        }} else {{
            if (lane == 0) kg_status.publish(kg_tile, kg_aggregate, 1u);
            long long kg_nearest = kg_tile - 1;
            while (true) {{
                const long long j = kg_nearest - lane;
                unsigned int f = 2u;
                {t} kg_val = kg_identity;
                if (j >= 0) f = kg_status.wait(j, &kg_val);
                const unsigned int kg_done = __ballot_sync(0xffffffffu, f == 2u);
                const int kg_stop = kg_done ? __ffs(kg_done) - 1 : 32;
                if (lane > kg_stop) kg_val = kg_identity;
#pragma unroll
                for (int off = 1; off < 32; off <<= 1) {{
                    const {t} other = __shfl_down_sync(0xffffffffu, kg_val, off);
                    if ((lane & (2 * off - 1)) == 0) kg_val = kg_op(other, kg_val);
                }}
                kg_before = kg_op(__shfl_sync(0xffffffffu, kg_val, 0), kg_before);
                if (kg_done) break;
                kg_nearest -= 32;
            }}
            if (lane == 0) kg_status.publish(kg_tile, kg_op(kg_before, kg_aggregate), 2u);
        }}
        if (lane == 0) *kg_tile_prefix = kg_before;
    }}
    __syncthreads();
    {t} kg_warp_prefix = kg_identity;
    for (int k = 0; k < warp; ++k) kg_warp_prefix = kg_op(kg_warp_prefix, kg_totals[k]);
    const {t} kg_prefix = kg_op(*kg_tile_prefix, kg_op(kg_warp_prefix, kg_exclusive));
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {{
        const int j = lane * ITEMS + k;
        kg_mine[j + j / 32] = {store};
    }}
    __syncwarp();
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {{
        const int j = k * 32 + lane;
        const long long g = kg_wbase + j;
        if (g < n) kg_out[g] = kg_mine[j + j / 32];
    }}
}}
"#
    ));
    let unsafe_reason = op.unsafe_reason.or(identity.unsafe_reason);
    Ok(KernelInfo {
        entry_points: vec![s.name.clone()],
        width: items,
        unsafe_reason,
    })
}

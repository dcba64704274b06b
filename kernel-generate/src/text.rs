//! Writing generated CUDA text: user expressions on lines of their own, recorded as
//! regions so a compiler's `file(line)` maps back to the kernel and the part, and the
//! helpers every generated module shares.

/// Where a user's text is in the generated source: lines `first..=last` (1-based) hold
/// `part` of kernel `kernel`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// First line of the text.
    pub first: usize,
    /// Last line of the text.
    pub last: usize,
    /// The kernel's label.
    pub kernel: String,
    /// `body`, `map`, `reduce`, `identity`, `post`, `op`, `preamble`.
    pub part: String,
}

/// A CUDA source being written, recording where each user text goes.
pub(crate) struct Writer {
    out: String,
    lines: usize,
    regions: Vec<Region>,
}

impl Writer {
    pub(crate) fn new() -> Writer {
        Writer {
            out: String::new(),
            lines: 0,
            regions: Vec::new(),
        }
    }

    /// Appends generated text (one or more whole lines).
    pub(crate) fn push(&mut self, text: &str) {
        self.out.push_str(text);
        if !text.ends_with('\n') {
            self.out.push('\n');
        }
        self.lines = self.out.matches('\n').count();
    }

    /// Appends a user's text on lines of its own, recording them as `label`'s `part`.
    pub(crate) fn user(&mut self, label: &str, part: &str, text: &str) {
        let first = self.lines + 1;
        self.push(text.trim_end());
        self.regions.push(Region {
            first,
            last: self.lines,
            kernel: label.to_owned(),
            part: part.to_owned(),
        });
    }

    pub(crate) fn finish(self) -> (String, Vec<Region>) {
        (self.out, self.regions)
    }
}

/// The helpers of every generated module: an aligned vector of `V` elements and ordered
/// warp and block reductions.
pub(crate) const HELPERS: &str = r#"
// The C constants an expression may use, where the compiler's headers do not give them
// (NVRTC includes no <math.h>).
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
#ifndef HUGE_VALF
#define HUGE_VALF INFINITY
#endif
#ifndef HUGE_VAL
#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)
#endif
template <typename T, int V> struct alignas(sizeof(T) * V) kg_vec { T v[V]; };

// Reduces `v` over the warp: lane 0 gets op(v0, op(v1, ...)) in lane order.
template <typename T, typename Op>
__device__ __forceinline__ T kg_warp_reduce(T v, Op op) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        T other = __shfl_down_sync(0xffffffffu, v, off);
        v = op(v, other);
    }
    return v;
}

// Reduces `v` over the block (any multiple of 32 threads); thread 0 gets the result.
template <typename T, typename Op>
__device__ __forceinline__ T kg_block_reduce(T v, Op op, T identity) {
    __shared__ alignas(16) unsigned char kg_raw[32 * sizeof(T)];
    T* warps = reinterpret_cast<T*>(kg_raw);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = kg_warp_reduce(v, op);
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        const int count = (blockDim.x + 31) >> 5;
        v = lane < count ? warps[lane] : identity;
        v = kg_warp_reduce(v, op);
    }
    return v;
}

// Inclusive scan over the warp in lane order.
template <typename T, typename Op>
__device__ __forceinline__ T kg_warp_scan(T v, Op op) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        T other = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= off) v = op(other, v);
    }
    return v;
}
"#;

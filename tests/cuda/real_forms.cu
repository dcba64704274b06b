// Forms of real kernel libraries (reproductions of our own): named constants in array
// bounds and template arguments, a kernel taking a type the front end cannot lay out (a
// bit-field struct), and optional pointers that may be null (as candle's strided kernels
// take a null `info` for contiguous tensors and a null `inp` for in-place).
#include <stddef.h>

static constexpr unsigned QK = 4;
enum Op { FILL = 0, ARANGE = 1, SCALE };

struct Table {
    unsigned data[QK + 1];
    unsigned size;
};

// The sum of the table's entries, plus its size.
extern "C" __global__ void tab(Table t, unsigned* out) {
    unsigned s = t.size;
    for (unsigned i = 0; i <= QK; ++i) s += t.data[i];
    out[0] = s;
}

// a[i] = F * i + 1 for the instantiated operation.
template <Op F> __global__ void fill(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = (float)F * i + 1.0f;
}
template __global__ void fill<SCALE>(float*, int);

// A params class template whose fields name its own member types, as attention libraries
// write theirs.
template <typename DType_, typename IdType_>
struct Params {
    using DType = DType_;
    typedef IdType_ IdType;
    DType* out;
    IdType n;
    DType scale;
};

// out[i] = scale * i for i < n.
template <typename P>
__global__ void scaled_iota(const __grid_constant__ P p) {
    typename P::IdType i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) p.out[i] = p.scale * (typename P::DType)i;
}
template __global__ void scaled_iota<Params<float, int>>(const __grid_constant__ Params<float, int>);

struct Flags {
    unsigned mode : 3;
    unsigned on : 1;
};

// x[i] = mode + x[i] where `on` is set: the front end cannot lay out `Flags`.
extern "C" __global__ void apply(float* x, Flags f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (f.on && i < n) x[i] += (float)f.mode;
}

// out[i] = 2 * inp[i] (or in place when `inp` is null), reading inp through `strides` when
// given (strides[i] is the source index of element i), contiguously when null.
extern "C" __global__ void copy2(size_t n, const size_t* strides, const float* inp, float* out) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* src = inp ? inp : out;
    size_t from = strides ? strides[i] : i;
    out[i] = 2.0f * src[from];
}

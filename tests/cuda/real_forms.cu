// Forms of real kernel libraries (reproductions of our own): named constants in array
// bounds and template arguments, a bit-field struct (by value and behind a pointer), kernels
// taking types the front end cannot lay out (a library operator's `typename Op::Params`, as
// CUTLASS's kernels take theirs), a kernel taking a closure,
// and optional pointers that may be null (as candle's strided kernels take a null `info`
// for contiguous tensors and a null `inp` for in-place).
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

// A kernel of internal linkage (a local symbol of the image): x[i] = x[i] / 2.
static __global__ void halve(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 0.5f;
}

struct Flags {
    unsigned mode : 3;
    unsigned on : 1;
};

// x[i] = mode + x[i] where `on` is set.
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

// The number of flags with `on` set, added to out[0]: a pointer to the opaque type.
extern "C" __global__ void count_on(const Flags* fs, int n, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && fs[i].on) atomicAdd(out, (int)fs[i].mode);
}

// A library operator whose kernel takes `typename Op::Params`: y = alpha * x + y.
namespace lib {
template <typename T>
struct Axpy {
    struct Params {
        T alpha;
        const T* x;
        T* y;
        int n;
        Params() = default;
        __host__ __device__ Params(T a, const T* x_, T* y_, int n_) : alpha(a), x(x_), y(y_), n(n_) {}
    };
    __device__ void operator()(Params const& p) const {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < p.n) p.y[i] = p.alpha * p.x[i] + p.y[i];
    }
};

template <typename Op>
__global__ void Kernel(typename Op::Params params) {
    Op op;
    op(params);
}
}  // namespace lib

template __global__ void lib::Kernel<lib::Axpy<float>>(lib::Axpy<float>::Params);

// Instantiated by host code only.
void run_axpy(double a, const double* x, double* y, int n) {
    lib::Kernel<lib::Axpy<double>><<<(n + 255) / 256, 256>>>(lib::Axpy<double>::Params(a, x, y, n));
}

// A kernel taking a closure: its type exists only in C++ (here the closure captures `p`).
template <typename F>
__global__ void each(F f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) f(i);
}

void triple(float* p, int n) {
    each<<<(n + 255) / 256, 256>>>([=] __device__ (int i) { p[i] *= 3.0f; }, n);
}

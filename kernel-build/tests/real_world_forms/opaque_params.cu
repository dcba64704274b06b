// Parameter types as libraries write them: a bit-field struct (laid out, its bit-fields as
// bytes), and what the front end can name but not lay out: a library's operator class whose kernel takes `typename Op::Params`,
// a pointer to such a type, enumerations of the toolkit's headers; and what C++ cannot
// name at the end of the file: a closure.
#include <mma.h>
#include <cuda/std/atomic>

struct Flags {
    unsigned mode : 3;
    unsigned on : 1;
};

extern "C" __global__ void with_bits(float* x, Flags f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (f.on && i < n) x[i] += (float)f.mode;
}

extern "C" __global__ void count_on(const Flags* fs, int n, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && fs[i].on) atomicAdd(out, 1);
}

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

void run_double(double* y, const double* x, int n) {
    lib::Axpy<double>::Params p(2.0, x, y, n);
    lib::Kernel<lib::Axpy<double>><<<(n + 255) / 256, 256>>>(p);
}

__global__ void layout_of(nvcuda::wmma::layout_t l, cuda::std::memory_order o, int* out) {
    out[0] = (int)l;
    out[1] = (int)o;
}

template <typename F>
__global__ void each(F f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) f(i);
}

void twice(float* p, int n) {
    each<<<(n + 255) / 256, 256>>>([=] __device__ (int i) { p[i] *= 2.0f; }, n);
}

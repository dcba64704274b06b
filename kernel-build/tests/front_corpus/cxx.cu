// C++ linkage: plain, namespaced, overloaded and template kernels.
#include <cstdint>
#include <cuda_fp16.h>

__global__ void cxx_plain(int* p, int* q) { *p = *q; }

__global__ void wide(int64_t a, long long b, size_t c, long d) {}

__global__ void overload(int* a) {}
__global__ void overload(float* a) {}

namespace ns {
__global__ void inns(const float* a, float* b, size_t n) {}
}

namespace geo {
struct Pt { float x, y; };
__global__ void k08(Pt p, const Pt* pp, Pt* out, float* f) {}
}

namespace a { namespace b {
struct W { double w; int i; };
__global__ void k09(W w, W* pw, const W* cpw) {}
} }

struct V { float x, y; };

template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
template __global__ void axpy<float>(float, const float*, float*, int);
template __global__ void axpy<double>(double, const double*, double*, int);

template <typename T, int N>
__global__ void tmpl2(const T* __restrict__ a, T* b, long long n) {}
template __global__ void tmpl2<float, 4>(const float*, float*, long long);
template __global__ void tmpl2<__half, -1>(const __half*, __half*, long long);

namespace ops {
template <typename T>
__global__ void k15(T* out, const T* in, unsigned n) {}
template __global__ void k15<float>(float*, const float*, unsigned);
}

template <bool B>
__global__ void k17(int* p) {}
template __global__ void k17<true>(int*);

template <typename T>
__global__ void k14(T v, const T* pv, T** ppv) {}
template __global__ void k14<V>(V, const V*, V**);

template <typename T>
__global__ void scale(T* x, T s, unsigned n) {}
template __global__ void scale(float*, float, unsigned);

template <typename T, typename U = int>
__global__ void defaulted(T* t, U u) {}
template __global__ void defaulted<double>(double*, int);

static __global__ void static_kern(int* p) { *p = 1; }
void launch_static(int* p) { static_kern<<<1, 1>>>(p); }

// Kernels whose parameter layouts are known from the format reference (every row of
// its verified-layout table), plus launch attributes and module globals. Compiled by
// the fatbin reader's integration tests.
#include <cstdint>
#include <cuda_fp16.h>

extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T> __global__ void scale(T* x, T s, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}
template __global__ void scale<float>(float*, float, unsigned);
template __global__ void scale<double>(double*, double, unsigned);

struct P { float x; double y; int z; };
extern "C" __global__ void withstruct(P p, P* out) { *out = p; }

extern "C" __global__ void mixed(char c, short s, int i, long long ll, double d, float f,
                                 const int* cp, unsigned char uc) {
  if (threadIdx.x == 0) ((long long*)cp)[0] = c + s + i + ll + (long long)d + (long long)f + uc;
}

extern "C" __global__ void bigarr(int4 v, float2 f2, double2 d2) {}

struct Big { int a[40]; };
extern "C" __global__ void bigstruct(Big b, int* out) { out[threadIdx.x] = b.a[threadIdx.x % 40]; }

namespace outer { namespace inner {
struct V { float x, y; };
template <typename T>
__global__ void k(T v, const T* p, T** pp, unsigned long long n, bool f, signed char sc, char c,
                  unsigned char uc, short s, unsigned short us, uint32_t u32, int64_t i64,
                  uint64_t u64, double d, __half h) {}
template __global__ void k<V>(V, const V*, V**, unsigned long long, bool, signed char, char,
                              unsigned char, short, unsigned short, uint32_t, int64_t, uint64_t,
                              double, __half);
} }

struct Huge { int a[2000]; };
extern "C" __global__ void hugeparam(Huge h, int* out) { out[threadIdx.x] = h.a[threadIdx.x]; }

struct H { int a[2000]; };
extern "C" __global__ void hv2(H h, int* out, const double* d, char c, short s) {
  out[threadIdx.x] = h.a[threadIdx.x] + (int)d[threadIdx.x] + c + s;
}

__global__ void noparams() {}

extern "C" __global__ void __launch_bounds__(256, 2) bounded(float* out, int unused) {
  out[threadIdx.x] = 1.0f;
}

extern "C" __global__ void __maxnreg__(40) maxnreg_k(float* p) { p[threadIdx.x] = 0; }

extern "C" {
__constant__ float coeffs[16];
__device__ unsigned int counter;
}
__device__ double table[4] = {1.0, 2.0, 3.0, 4.0};

extern "C" __global__ void use_globals(float* out) {
  out[threadIdx.x] = coeffs[threadIdx.x % 16] + (float)table[threadIdx.x % 4];
  atomicAdd(&counter, 1u);
}

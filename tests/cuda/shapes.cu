// Kernels covering every stub shape of the generated API.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stddef.h>

struct Affine {
    float scale;
    int offset;
    double bias;
};

// Unions, named and typedef'd anonymous, alone and inside a struct.
union Word {
    float f;
    unsigned int u;
};
typedef union { __half h; unsigned short u; } HalfBits;
struct Tagged {
    char tag;
    Word w;
};

__constant__ float coeffs[4];
__device__ int counter;

// Every scalar type, widened to double.
extern "C" __global__ void scalars(bool b, char c, signed char sc, unsigned char uc, short s,
                                   unsigned short us, int i, unsigned int u, long l, long long ll,
                                   unsigned long long ull, size_t z, ptrdiff_t d, float f,
                                   double g, double* out) {
    out[0] = b; out[1] = c; out[2] = sc; out[3] = uc; out[4] = s; out[5] = us; out[6] = i;
    out[7] = u; out[8] = (double)l; out[9] = (double)ll; out[10] = (double)ull;
    out[11] = (double)z; out[12] = (double)d; out[13] = f; out[14] = g;
}

// y = x * h + b, computed in float.
extern "C" __global__ void halves(__half h, __nv_bfloat16 b, const __half* x, float* y, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) y[k] = __half2float(x[k]) * __half2float(h) + __bfloat162float(b);
}

extern "C" __global__ void vectors(float2 a, int4 b, double2 c, double* out) {
    out[0] = a.x; out[1] = a.y;
    out[2] = b.x; out[3] = b.y; out[4] = b.z; out[5] = b.w;
    out[6] = c.x; out[7] = c.y;
}

// 64-bit lanes (`long2` and `longlong2` share one Rust type), a 16-byte aligned four-lane
// vector, and the two-lane 16-bit float vectors, widened to double.
extern "C" __global__ void wide_vectors(long2 l, longlong2 a, ulonglong4_16a b, __half2 h,
                                        __nv_bfloat162 e, double* out) {
    out[0] = (double)l.x; out[1] = (double)l.y; out[2] = (double)a.x; out[3] = (double)a.y;
    out[4] = (double)b.x; out[5] = (double)b.y; out[6] = (double)b.z; out[7] = (double)b.w;
    out[8] = __half2float(h.x); out[9] = __half2float(h.y);
    out[10] = __bfloat162float(e.x); out[11] = __bfloat162float(e.y);
}

// y = x * p.scale + p.offset + p.bias
extern "C" __global__ void affine(Affine p, const float* x, float* y, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) y[k] = (float)(x[k] * p.scale + p.offset + p.bias);
}

// y[k] = sum_j coeffs[j] * x[k]^j, and counts the threads that ran.
extern "C" __global__ void poly(const float* x, float* y, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        float v = x[k], acc = 0.0f, p = 1.0f;
        for (int j = 0; j < 4; ++j) { acc += coeffs[j] * p; p *= v; }
        y[k] = acc;
        atomicAdd(&counter, 1);
    }
}

// Each union read through its other member: the bits the host wrote.
extern "C" __global__ void unions(Word w, HalfBits h, Tagged t, unsigned int* out) {
    out[0] = w.u;
    out[1] = h.u;
    out[2] = (unsigned int)t.tag;
    out[3] = t.w.u;
}

extern "C" __global__ void noparams() {
    if (blockIdx.x == 0 && threadIdx.x == 0) counter = 42;
}

template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) y[k] = a * x[k] + y[k];
}
template __global__ void axpy<float>(float, const float*, float*, int);
template __global__ void axpy<double>(double, const double*, double*, int);

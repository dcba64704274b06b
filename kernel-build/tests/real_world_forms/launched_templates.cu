// Template kernels instantiated by host launches (no explicit instantiation), with type,
// integer, boolean and function-pointer arguments, in and out of namespaces; and an
// explicit instantiation list written with a macro.
#include <cuda_fp16.h>

typedef float (*unary_t)(float);
__device__ float neg(float v) { return -v; }
__device__ float sq(float v) { return v * v; }

template <typename T, int BLOCK, bool ACC>
__global__ void reduce_rows(const T* __restrict__ x, float* __restrict__ y, const int ncols) {
    float sum = 0.0f;
    for (int c = threadIdx.x; c < ncols; c += BLOCK) sum += float(x[blockIdx.x * ncols + c]);
    if (threadIdx.x == 0) y[blockIdx.x] = ACC ? y[blockIdx.x] + sum : sum;
}

template <unary_t OP>
__global__ void apply(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = OP(x[i]);
}

namespace quant {
template <int QK, typename dst_t>
__global__ void dequant(const void* vx, dst_t* y, const long k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k) y[i] = dst_t(((const char*)vx)[i / QK]);
}
}  // namespace quant

template <typename T>
__global__ void fill(T* x, T v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
#define INSTANTIATE_FILL(T) template __global__ void fill<T>(T*, T, int);
INSTANTIATE_FILL(float)
INSTANTIATE_FILL(int)

void launch(const float* xf, const __half* xh, float* y, float* z, half* h, int n) {
    reduce_rows<float, 128, false><<<n, 128>>>(xf, y, n);
    reduce_rows<float, 256, true><<<n, 256>>>(xf, y, n);
    reduce_rows<__half, 128, false><<<n, 128>>>(xh, y, n);
    apply<neg><<<1, 128>>>(z, n);
    apply<sq><<<1, 128>>>(z, n);
    quant::dequant<32, float><<<1, 128>>>(xf, z, n);
    quant::dequant<32, half><<<1, 128>>>(xf, h, n);
    fill<float><<<1, 128>>>(z, 1.0f, n);
}

// A variadic template kernel (a pack of source pointers), launched with two and three.
template <typename T, typename... srcs>
__global__ void sum_all(T* dst, const int n, srcs... src) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = (src[i] + ...);
}

// A function-pointer template parameter named inside its declarator, and a digit separator.
template <float (*op)(float), typename T>
static __global__ void unary(const T* x, T* y, const int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k) y[i] = T(op(float(x[i])) * 1'000);
}

void launch_more(float* d, const float* a, const float* b, const float* c, int n) {
    sum_all<float><<<1, 128>>>(d, n, a, b);
    sum_all<float><<<1, 128>>>(d, n, a, b, c);
    unary<neg, float><<<1, 128>>>(a, d, n);
}

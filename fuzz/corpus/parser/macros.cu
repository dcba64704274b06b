// Forms that need the preprocessor.
#include "corpus_types.h"

#define KERNEL extern "C" __global__
#define WIDTH 4

KERNEL void via_macro(float* out, int n) {}

#define DECLARE_FILL(T, NAME) extern "C" __global__ void NAME(T* out, T v, int n) {}
DECLARE_FILL(float, fill_f32)
DECLARE_FILL(double, fill_f64)

#if 0
extern "C" __global__ void disabled(int x) {}
#endif

#ifdef __CUDACC__
extern "C" __global__ void under_cudacc(const int* p) {}
#endif

struct Lanes { float v[WIDTH]; int n; };
KERNEL void lanes(Lanes l, Acc acc, acc_t* out) {}

__device__ float helper(float x) { return x * 2.0f; }
__host__ __device__ float both(float x) { return x; }
__device__ __noinline__ int noinline_helper(int x) { return x + 1; }

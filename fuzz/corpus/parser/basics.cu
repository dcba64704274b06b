// Scalars, pointers and C linkage forms.
#include <cstdint>
#include <cstddef>

// saxpy: y = a*x + y
extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void mixed(char c, short s, int i, long long ll, double d, float f, const int* cp, unsigned char uc) {
    if (threadIdx.x == 0) ((long long*)cp)[0] = c + s + i + ll + (long long)d + (long long)f + uc;
}

extern "C" __global__ void spellings(signed char a, unsigned short b, unsigned c, long d, unsigned long e,
                                     long long int f, unsigned long long g, bool h, short int i, long unsigned int j) {}

extern "C" __global__ void stdint_names(int8_t a, uint8_t b, int16_t c, uint16_t d, int32_t e, uint32_t f,
                                        int64_t g, uint64_t h, size_t i, ptrdiff_t j, std::size_t k) {}

extern "C" __global__ void unnamed(float*, int, const double*) {}

extern "C" __global__ void const_const(const float* const p, float* const q, const int n) {}

extern "C" __global__ void void_ptrs(void* raw, const void* craw, int n) {}

extern "C" __global__ void ptr_ptr(float** pp, const float* const* cpp, int*** ppp) {}

extern "C" __global__ void volatile_ptr(volatile int* v, const volatile unsigned* cv) {}

extern "C" __global__ void noparams() {}

extern "C" __global__ void voidparams(void) {}

extern "C"
__global__
void /* the return type */ multiline(
    float a,      // first
    /* second */ const float *
        b,
    int
    n /* last */
)
{
}

// Declared first, defined below: one kernel.
extern "C" __global__ void declared_then_defined(float* out, int n);

extern "C" __global__ void __launch_bounds__(256, 2) bounded(float* out, int unused) { out[threadIdx.x] = 1.0f; }

extern "C" __global__ void __launch_bounds__(128) bounded1(float* out) { out[threadIdx.x] = 2.0f; }

extern "C" __global__ void __maxnreg__(40) maxnreg_k(float* p) { p[threadIdx.x] = 0; }

extern "C" {
__global__ void in_block_a(int* p) { *p = 1; }
__global__ void in_block_b(const char* s, unsigned char* u) {}
}

extern "C" __global__ void array_param(float a[], const int b[16]) {}

extern "C" __global__ void declared_then_defined(float* out, int n) {
    if (threadIdx.x < n) out[threadIdx.x] = 0.0f;
}

const char* not_a_kernel = "__global__ void fake(int x);";
// __global__ void commented_out(int x);
/* extern "C" __global__ void also_commented(int x); */

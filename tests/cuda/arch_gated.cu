// Kernels declared only where the target supports them, as kernel libraries write them:
// half kernels from sm_53, bfloat16 and fp8 kernels from sm_80, one Hopper-only kernel
// from sm_90. Every other line is plain CUDA.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#define SCALE_OP(TYPE, NAME, TO_FLOAT, FROM_FLOAT)                                   \
    extern "C" __global__ void NAME(const TYPE* x, TYPE* y, float s, int n) {          \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                 \
        if (i < n) y[i] = FROM_FLOAT(TO_FLOAT(x[i]) * s);                              \
    }

#define ID(x) (x)
SCALE_OP(float, scale_f32, ID, ID)

#if __CUDA_ARCH__ >= 530
SCALE_OP(__half, scale_f16, __half2float, __float2half)
#endif

#if __CUDA_ARCH__ >= 800
SCALE_OP(__nv_bfloat16, scale_bf16, __bfloat162float, __float2bfloat16)
// fp8 (E4M3) to float: decodes through the header's conversion.
extern "C" __global__ void fp8_to_f32(const __nv_fp8_e4m3* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = float(x[i]);
}
#endif

#if __CUDA_ARCH__ >= 900
// Hopper only: each block of a 2-block cluster reads its rank through the cluster API.
extern "C" __global__ void cluster_rank(unsigned* out) {
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    if (threadIdx.x == 0) out[blockIdx.x] = rank;
}
#endif

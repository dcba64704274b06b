// Every kind of CUDA type a kernel takes by value: narrow floats and their packed forms,
// half and bfloat16 pairs, vector types of every lane type, complex numbers, enums,
// dim3/uint3, texture and surface objects.
#include <cuComplex.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#include <stdint.h>

enum Mode { MODE_A, MODE_B = 7 };
enum class Small : uint8_t { Lo, Hi };
typedef enum { PLAIN_X, PLAIN_Y } Plain;

extern "C" __global__ void fp8s(__nv_fp8_e4m3 a, __nv_fp8_e5m2 b, __nv_fp8_e8m0 c,
                                __nv_fp8x2_e4m3 d, __nv_fp8x4_e5m2 e, __nv_fp8x4_e8m0 f,
                                float* out) {
    out[0] = float(a) + float(b);
}

extern "C" __global__ void fp6_fp4(__nv_fp6_e2m3 a, __nv_fp6_e3m2 b, __nv_fp6x2_e2m3 c,
                                   __nv_fp6x4_e3m2 d, __nv_fp4_e2m1 e, __nv_fp4x2_e2m1 f,
                                   __nv_fp4x4_e2m1 g, unsigned char* out) {
    out[0] = a.__x + e.__x + f.__x;
}

extern "C" __global__ void pairs(__half2 h, __nv_bfloat162 b, __half x, __nv_bfloat16 y,
                                 float* out) {
    out[0] = __low2float(h) + __low2float(b);
}

extern "C" __global__ void vectors(char1 a, char2 b, char3 c, char4 d, uchar2 e, uchar4 f,
                                   short2 g, short3 h, short4 i, ushort4 j, int2 k, int3 l,
                                   int4 m, uint2 n, uint4 o, long2 p, ulong2 q,
                                   longlong2 r, ulonglong4_16a s, float3 t, float4 u,
                                   double2 v, double3 w, double4_16a x, int* out) {
    out[0] = a.x + m.w;
}

extern "C" __global__ void complex_enum_dims(cuComplex a, cuDoubleComplex b, Mode m, Small s,
                                             Plain p, dim3 grid, uint3 idx, float* out) {
    out[0] = cuCrealf(a) + (int)m + (int)s + grid.x + idx.z;
}

extern "C" __global__ void objects(cudaTextureObject_t tex, cudaSurfaceObject_t surf,
                                   float* out) {
    out[0] = tex1Dfetch<float>(tex, 0);
}

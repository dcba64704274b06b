// Vector, half and struct types; typedefs; module globals.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

typedef float real;
typedef const real* creal_ptr;
typedef unsigned int u32;
using idx_t = long long;

struct P { float x; double y; int z; };
typedef struct { int a; char b; } Small;
typedef struct Tagged { short s; double d; } TaggedT;
struct Big { int a[40]; };
struct Nested { P p; char tag; float2 v; short s[3]; };
struct __align__(16) A16 { float x; };
union U { int i; double d; char c[12]; };
class C { public: int a; double b; };

__constant__ float coeffs[16];
__device__ int counter;
__constant__ P const_p;
__device__ float2 table[4][2];

extern "C" __global__ void halves(__half h, __nv_bfloat16 b, __half2 h2, __nv_bfloat162 b2, const __half* hp, __nv_bfloat16* bp) {}

extern "C" __global__ void vectors(float2 f2, float3 f3, float4 f4, int4 i4, double2 d2, uchar4 u4,
                                   longlong2 l2, short3 s3, char2 c2, uint2 ui2, double3 d3) {}

extern "C" __global__ void vector_ptrs(const float4* in, float4* out, int2* idx) {}

extern "C" __global__ void withstruct(P p, P* out) { *out = p; }

extern "C" __global__ void struct_ptrs(const P* in, P** table, Small* s) {}

extern "C" __global__ void gridconst(const __grid_constant__ Small s, int* out) { *out = s.a + s.b; }

extern "C" __global__ void tagged(TaggedT t, struct Tagged* tp, struct P sp) {}

extern "C" __global__ void bigstruct(Big b, int* out) { out[threadIdx.x] = b.a[threadIdx.x % 40]; }

extern "C" __global__ void nested(Nested n, char c, Nested* np) {}

extern "C" __global__ void aligned16(char c, A16 a, union U u, C obj) {}

extern "C" __global__ void typedefd(real a, creal_ptr x, u32 n, idx_t i, real* out) {}

// Structs laid out by packing, alignment and bit-fields, written in the common ways (a
// pragma, attributes before and after the body, through macros, on members), read through
// pointers by a kernel: the typed stubs must carry the bytes nvcc laid out.
#define PACKED __attribute__((packed))
#define ALIGNED(n) __attribute__((aligned(n)))

#pragma pack(push, 1)
struct P1 { char a; double b; };
#pragma pack(push, 2)
struct P2 { char a; double b; int c; };
#pragma pack(pop)
#pragma pack(pop)
struct PACKED Q1 { char a; float b; short c; };
struct Q2 { char a; double b; } PACKED;
struct A1 { float x; } ALIGNED(32);
struct M1 { char c; alignas(16) float x; int y; };
struct M2 { char c; __align__(8) short s; };
struct B1 { unsigned a : 3; unsigned b : 7; char c; unsigned d : 20; };
_Pragma("pack(push, 4)")
struct V { char c; double d; };
_Pragma("pack(pop)")

// out[8 i + j]: the fields of element i of each array, summed as doubles.
extern "C" __global__ void read_layouts(const P1* p1, const P2* p2, const Q1* q1, const Q2* q2,
                                        const A1* a1, const M1* m1, const M2* m2, const B1* b1,
                                        const V* v, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double* o = out + 8 * i;
    o[0] = (double)p1[i].a + p1[i].b;
    o[1] = (double)p2[i].a + p2[i].b + p2[i].c;
    o[2] = (double)q1[i].a + q1[i].b + q1[i].c;
    o[3] = (double)q2[i].a + q2[i].b + a1[i].x;
    o[4] = (double)m1[i].c + m1[i].x + m1[i].y;
    o[5] = (double)m2[i].c + m2[i].s;
    o[6] = b1[i].a + 8.0 * b1[i].b + 1024.0 * b1[i].c + 65536.0 * b1[i].d;
    o[7] = (double)v[i].c + v[i].d;
}

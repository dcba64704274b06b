// Packing, alignment and bit-fields written in the common ways (pragmas with push and pop,
// nested, from a macro; attributes before and after the body and through macros; alignas and
// __align__ on structs and members; bit-fields of several widths, unnamed and zero-width;
// class templates defined under a pragma or with an attribute), each read through a pointer.
#define PACKED __attribute__((packed))
#define ALIGN(n) __attribute__((aligned(n)))
#pragma pack(push, 1)
struct P1 { char a; double b; };
#pragma pack(push, 2)
struct P2 { char a; double b; int c; };
#pragma pack(pop)
struct P1b { char a; int b; };
#pragma pack(pop)
struct PACKED Q1 { char a; float b; short c; };
struct Q2 { char a; float b; } PACKED;
typedef struct { char a; double b; } PACKED Q3;
struct ALIGN(16) A1 { float x; };
struct A2 { float x; } ALIGN(32);
struct alignas(16) A3 { char c; };
struct __align__(8) A4 { char c; short s; };
struct M1 { char c; alignas(16) float x; int y; };
struct M2 { char c; float x __attribute__((aligned(8))); };
struct M3 { char c; __align__(16) int v; };
struct MP { char c; int x PACKED; short s; };
struct B1 { unsigned a : 3; unsigned b : 7; char c; unsigned d : 20; unsigned : 0; unsigned e : 1; };
struct B2 { char c; int x : 4; long long y : 40; short z; };
struct PACKED B3 { char c; int x : 12; };
struct Nest { char c; P1 p; Q1 q; A1 a; };
_Pragma("pack(push, 4)")
struct V { char c; double d; };
_Pragma("pack(pop)")
template <typename T> struct PACKED TP { char c; T v; };
#pragma pack(push, 1)
template <typename T> struct TQ { char c; T v; };
#pragma pack(pop)
extern "C" __global__ void k(const P1* a, const P2* b, const P1b* c, Q1* d, Q2* e, Q3* f, A1* g, A2* h, A3* i, A4* j) {}
extern "C" __global__ void m(M1* a, M2* b, M3* c, MP* d) {}
extern "C" __global__ void bf(B1* a, B2* b, B3* c, Nest* n, V* v) {}
template <typename T> __global__ void t(const TP<T>* a, TQ<T>* b) {}
template __global__ void t<double>(const TP<double>*, TQ<double>*);

// Layouts the front end does not follow (a private member; an anonymous union member) and the
// case of a packed struct read through a pointer and passed by value.
#pragma pack(push, 1)
struct P { char a; double b; };
#pragma pack(pop)
extern "C" __global__ void byptr(const P* p, double* out) { out[0] = p[threadIdx.x].b; }
extern "C" __global__ void byval(P p, double* out) { out[0] = p.b; }

class Hidden { int secret; public: float shown; __device__ float get() const { return shown + secret; } };
extern "C" __global__ void hidden(const Hidden* h, float* out) { out[0] = h->get(); }

struct Outer { int k; union { int i; float f; }; };
extern "C" __global__ void outer(Outer* o) { o->i = o->k; }

struct Plain { int x; float y; };
extern "C" __global__ void plain(const Plain* p, float* out) { out[0] = p->x + p->y; }

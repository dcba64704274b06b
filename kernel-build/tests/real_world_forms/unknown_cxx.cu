// C++ the front end does not need to understand, around kernels it must find: function
// pointer typedefs, constexpr functions, static_assert, attributes, operator overloads,
// constructors taking references, nested templates, lambdas, inline asm and launch bounds
// with expressions; kernels in namespaces, anonymous namespaces and `static`.
#include <stdint.h>

typedef void (*dequantize_kernel_t)(const void* vx, int64_t ib, int iqs, float2& v);
using to_float_t = float (*)(float);

constexpr int warp_size() { return 32; }
static_assert(warp_size() == 32, "warps");
constexpr int BLOCK = 4 * warp_size();

template <typename T, int N>
struct Array {
    T v[N];
    __host__ __device__ T& operator[](int i) { return v[i]; }
    __host__ __device__ const T& operator[](int i) const { return v[i]; }
};

struct Params {
    int n;
    float scale;
    Params() = default;
    Params(const Params&) = default;
    __host__ __device__ Params(int n_, float s) : n(n_), scale(s) {}
    __host__ __device__ Params& operator=(const Params& o) = default;
    bool operator==(const Params& o) const { return n == o.n; }
};

template <template <typename, int> class C, typename T>
struct Holder {
    C<T, 4> c;
};

[[nodiscard]] __device__ inline float twice(float x) { return 2.0f * x; }

__device__ inline unsigned lane_id() {
    unsigned id;
    asm("mov.u32 %0, %%laneid;" : "=r"(id));
    return id;
}

extern "C" __global__ void __launch_bounds__(BLOCK, 2 * 2) scale_params(Params p, float* x) {
    auto f = [](float v) { return twice(v); };
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) x[i] = f(x[i]) * p.scale + lane_id() * 0;
}

namespace ops {
__global__ void in_namespace(float* x, int n) {
    if ((int)threadIdx.x < n) x[threadIdx.x] = 1.0f;
}
namespace {
__global__ void in_anonymous(float* x) { x[0] = 2.0f; }
}  // namespace
}  // namespace ops

static __global__ void file_local(int* x) { x[0] = 3; }

void launch_all(float* x, int* y) {
    ops::in_anonymous<<<1, 1>>>(x);
    file_local<<<1, 1>>>(y);
}

// A parenthesised array extent from a macro (`#define LIMIT (256)`) is a field, not a method.
#define LIMIT (256)
typedef struct {
    int param[LIMIT];
} big_param_t;
extern "C" __global__ void big_param(__grid_constant__ const big_param_t p, int* out) {
    *out = p.param[threadIdx.x];
}

// A free compound-assignment operator (its `=` is no initializer): the typedef after it is read.
inline __host__ __device__ void operator+=(float2& a, float2 b) {
    a.x += b.x;
    a.y += b.y;
}
typedef unsigned char Flag;
extern "C" __global__ void flags(const float* x, Flag* out) { out[0] = x[0] > 0; }

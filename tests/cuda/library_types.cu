// Kernels whose parameters take their types from library headers and from C++ that
// real kernel libraries write: runtime API structs by value, class templates, tag types
// of <type_traits>, device function pointers and pointers to arrays.
#include <cuda_runtime.h>
#include <type_traits>

// Writes every field of three runtime API structs, to check their layouts end to end.
extern "C" __global__ void extents(unsigned long long* out, cudaExtent e, cudaPitchedPtr p,
                                   cudaPos pos) {
    out[0] = e.width;
    out[1] = e.height;
    out[2] = e.depth;
    out[3] = (unsigned long long)p.ptr;
    out[4] = p.pitch;
    out[5] = p.xsize;
    out[6] = p.ysize;
    out[7] = pos.x;
    out[8] = pos.y;
    out[9] = pos.z;
}

template <typename T>
struct interval {
    T lo, hi;
};

template <typename T, int N>
struct small_vec {
    T v[N];
    int used;
};

// out[i] = [in.lo - extra.v[i % 3], in.hi + extra.v[(i + 1) % 3] * extra.used].
template <typename T>
__global__ void widen(interval<T>* out, interval<T> in, small_vec<T, 3> extra, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i].lo = in.lo - extra.v[i % 3];
        out[i].hi = in.hi + extra.v[(i + 1) % 3] * T(extra.used);
    }
}
template __global__ void widen<float>(interval<float>*, interval<float>, small_vec<float, 3>, int);
template __global__ void widen<double>(interval<double>*, interval<double>, small_vec<double, 3>,
                                       int);

template <typename T>
class Span {
  public:
    const T* data;
    int n;
    __device__ T at(int i) const { return data[i]; }
};

// out[0] = the sum of the span's elements (one thread).
__global__ void span_sum(const Span<float>* s, float* out) {
    float acc = 0.0f;
    for (int i = 0; i < s->n; ++i) acc += s->at(i);
    out[0] = acc;
}

// x[i] += bias[i] with the bias, x[i] *= 2 without.
template <bool UseBias>
__global__ void bias_or_double(float* x, const float* bias, int n, std::bool_constant<UseBias>) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = UseBias ? x[i] + bias[i] : 2.0f * x[i];
}
template __global__ void bias_or_double<true>(float*, const float*, int, std::true_type);
template __global__ void bias_or_double<false>(float*, const float*, int, std::false_type);

typedef float (*binary_op)(float, float);
__device__ float add_op(float a, float b) { return a + b; }
__device__ float mul_op(float a, float b) { return a * b; }
// The addresses of the device functions, for the host to read and pass back.
__device__ binary_op ops[2] = {add_op, mul_op};

// out[i] = op(a[i], b[i]).
__global__ void apply_op(binary_op op, const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = op(a[i], b[i]);
}

typedef float pair2[2];
// sums[i] = [xy[i][0] + xy[i][1], xy[i][0] * xy[i][1]].
__global__ void pair_ops(const pair2* xy, float (*sums)[2], int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        sums[i][0] = xy[i][0] + xy[i][1];
        sums[i][1] = xy[i][0] * xy[i][1];
    }
}

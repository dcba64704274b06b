// Kernel parameters whose types a library header defines, and C++ declarators real
// libraries use in kernel signatures: the runtime API's structs by value, class templates
// by value and behind pointers, a full specialization's member type, standard-library
// tag types, device function pointers and pointers to arrays.
#include <cuda_runtime.h>
#include <type_traits>

// The runtime API's structs (`driver_types.h`), by value.
extern "C" __global__ void volume(float* out, cudaExtent extent, cudaPitchedPtr pitched,
                                  cudaPos pos) {
    out[0] = float(extent.width * extent.height * extent.depth + pitched.pitch + pos.z);
}

// A class template by value and behind a pointer, instantiated for two types.
template <typename T>
struct interval {
    T lo, hi;
};

template <typename T, int N>
struct small_vec {
    T v[N];
    int used;
};

template <typename T>
__global__ void widen(interval<T>* out, interval<T> in, small_vec<T, 3> extra) {
    out[0].lo = in.lo - extra.v[0];
    out[0].hi = in.hi + extra.v[2];
}
template __global__ void widen<float>(interval<float>*, interval<float>, small_vec<float, 3>);
template __global__ void widen<double>(interval<double>*, interval<double>, small_vec<double, 3>);

// A class template only ever behind two pointers.
template <typename T>
class Container {
  public:
    T* data;
    int n;
    __device__ T get(int i) const { return data[i]; }
};
__global__ void containers(Container<int>** all, int n) { all[0]->n = n; }

// A member type of a full specialization, in a kernel launched from a host template.
template <typename T>
struct vec4 {};
template <>
struct vec4<float> {
    typedef float4 Type;
};
template <>
struct vec4<double> {
    typedef double4 Type;
};
template <typename T>
__global__ void integrate(typename vec4<T>::Type* pos, T dt) {
    pos[threadIdx.x].x += dt;
}
template <typename T>
void launch_integrate(typename vec4<T>::Type* pos, T dt) {
    integrate<T><<<1, 1>>>(pos, dt);
}
template void launch_integrate<float>(float4*, float);
template void launch_integrate<double>(double4*, double);

// Standard-library tag types (empty structs: one byte each) choosing a code path.
template <typename T, bool UseBias>
__global__ void bias_add(T* x, const T* bias, std::bool_constant<UseBias>) {
    if (UseBias) x[threadIdx.x] += bias[threadIdx.x];
}
template __global__ void bias_add<float, true>(float*, const float*, std::true_type);
template __global__ void bias_add<float, false>(float*, const float*, std::false_type);

// Device function pointers, in a typedef and written in place, and a table of them.
typedef float (*binary_op)(float, float);
__device__ float add_op(float a, float b) { return a + b; }
__device__ float mul_op(float a, float b) { return a * b; }
__device__ binary_op ops[2] = {add_op, mul_op};
__global__ void apply_op(binary_op op, float* x, int n) {
    if (threadIdx.x < n) x[threadIdx.x] = op(x[threadIdx.x], 2.0f);
}
__global__ void apply_unary(float (*op)(float), float* x) { x[0] = op(x[0]); }

// Pointers to arrays: through a typedef and written as a parenthesised declarator.
typedef float pair2[2];
__global__ void rows(pair2* xy, float (*grid)[4][2], int n) {
    grid[n][0][1] = xy[n][0] + xy[n][1];
}

// A class template with an enumeration of its own, behind a pointer of kernels that only
// host code launches (nvcc's host stub spells `option<float>` mangled).
template <typename Real>
struct option {
    enum Kind { Call, Put };
    Real spot, strike;
    Kind kind;
};
template <typename Real>
__global__ void price(Real* out, const option<Real>* opt, unsigned n) {
    out[0] = opt->kind == option<Real>::Call ? opt->spot - opt->strike : opt->strike - opt->spot;
}
template <typename Real>
void launch_price(Real* out, const option<Real>* opt) {
    price<<<1, 1>>>(out, opt, 1u);
}
template void launch_price<float>(float*, const option<float>*);
template void launch_price<double>(double*, const option<double>*);

// Base classes are laid out before the fields; an empty one takes no room.
struct tag {};
struct header {
    int id;
    float weight;
};
template <typename T>
struct holder {
    T value;
};
struct record : public header, tag {
    double score;
};
struct small_record : holder<short> {
    char flag;
};
__global__ void records(record r, small_record s, record* out) {
    out[0] = r;
    out[0].score += s.flag + s.value;
}

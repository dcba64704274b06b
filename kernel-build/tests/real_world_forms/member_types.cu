// A params class template whose fields name its own member types (`using DTypeQ = DTypeQ_;`),
// as attention libraries write their kernel parameters, launched from host code (a
// reproduction of our own).
#include <stdint.h>

template <typename DType, typename IdType>
struct paged_kv_t {
    uint32_t page_size;
    DType* k_data;
    IdType* indices;
    __host__ __device__ paged_kv_t() : page_size(0), k_data(nullptr), indices(nullptr) {}
};

template <typename DTypeQ_, typename DTypeKV_, typename IdType_>
struct Params {
    using DTypeQ = DTypeQ_;
    using DTypeKV = DTypeKV_;
    typedef IdType_ IdType;
    DTypeQ* q;
    paged_kv_t<DTypeKV, IdType> paged_kv;
    float sm_scale;
    IdType n;
    __device__ __host__ Params() : q(nullptr), paged_kv(), sm_scale(0.f), n(0) {}
};

template <uint32_t N, typename P>
__global__ void Decode(const __grid_constant__ P params) {
    using DTypeQ = typename P::DTypeQ;
    if (params.q) params.q[0] = (DTypeQ)(N + params.n);
}

template <typename T>
void launch(T* q) {
    Params<T, T, int> p;
    p.q = q;
    Decode<4, Params<T, T, int>><<<1, 1>>>(p);
}
template void launch<float>(float*);
template void launch<double>(double*);

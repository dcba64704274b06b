// Matrix products with CUTLASS (its 2.x device API, tensor cores of sm_80 and later), called
// from host functions with C linkage; and a kernel of our own applied to the product.
// Matrices are column-major (as cuBLAS's): A is m x k (lda = m), B k x n (ldb = k), C m x n
// (ldc = m). CUTLASS's headers come from the `nvidia-cutlass` wheel
// (`cuda-kernel-inspect toolkit install --with cutlass`).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cutlass/gemm/device/gemm.h>
#include <cutlass/numeric_types.h>

// C = alpha * A * B + beta * C with T inputs and output, f32 accumulation.
template <typename T, typename Storage>
static cudaError_t cutlass_gemm(int m, int n, int k, float alpha, const Storage* a,
                                const Storage* b, float beta, Storage* c, cudaStream_t stream) {
    using Col = cutlass::layout::ColumnMajor;
    using Gemm = cutlass::gemm::device::Gemm<T, Col, T, Col, T, Col, float,
                                             cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80>;
    const T* ta = reinterpret_cast<const T*>(a);
    const T* tb = reinterpret_cast<const T*>(b);
    T* tc = reinterpret_cast<T*>(c);
    typename Gemm::Arguments args({m, n, k}, {ta, m}, {tb, k}, {tc, m}, {tc, m}, {alpha, beta});
    Gemm gemm;
    if (gemm.can_implement(args) != cutlass::Status::kSuccess) return cudaErrorInvalidValue;
    cutlass::Status s = gemm(args, nullptr, stream);
    if (s != cutlass::Status::kSuccess) {
        cudaError_t e = cudaGetLastError();
        return e != cudaSuccess ? e : cudaErrorLaunchFailure;
    }
    return cudaGetLastError();
}

// f16: m, n and k multiples of 8 (16-byte aligned rows and columns).
extern "C" cudaError_t gemm_f16(int m, int n, int k, float alpha, const __half* a,
                                const __half* b, float beta, __half* c, cudaStream_t stream) {
    return cutlass_gemm<cutlass::half_t>(m, n, k, alpha, a, b, beta, c, stream);
}

// bf16: m, n and k multiples of 8.
extern "C" cudaError_t gemm_bf16(int m, int n, int k, float alpha, const __nv_bfloat16* a,
                                 const __nv_bfloat16* b, float beta, __nv_bfloat16* c,
                                 cudaStream_t stream) {
    return cutlass_gemm<cutlass::bfloat16_t>(m, n, k, alpha, a, b, beta, c, stream);
}

// c[i] = max(c[i], 0) for i < n.
extern "C" __global__ void relu_f16(__half* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = __hmax(c[i], __float2half(0.0f));
}

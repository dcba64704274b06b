// Host code next to kernels, compiled into the crate by `Build::host_code`: a launcher that
// launches a kernel of this file with `<<<...>>>` on the caller's stream, and CUB's
// device-wide radix sort of pairs and sum, all on buffers the Rust side allocated.
#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

// x[i] = s * x[i] for i < n.
extern "C" __global__ void scale(float* x, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

// Launches `scale` through the CUDA runtime on `stream`; returns the launch's cudaError_t.
extern "C" int hosted_scale(float* x, float s, int n, cudaStream_t stream) {
    scale<<<(n + 255) / 256, 256, 0, stream>>>(x, s, n);
    return (int)cudaGetLastError();
}

// Sorts n (key, value) pairs by key with CUB on `stream` (temporary storage from the
// stream-ordered allocator).
extern "C" int hosted_sort_pairs(const unsigned* keys_in, unsigned* keys_out, const float* values_in,
                                 float* values_out, int n, cudaStream_t stream) {
    size_t bytes = 0;
    cudaError_t e = cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, values_in,
                                                    values_out, n, 0, 32, stream);
    if (e != cudaSuccess) return (int)e;
    void* scratch = nullptr;
    e = cudaMallocAsync(&scratch, bytes, stream);
    if (e != cudaSuccess) return (int)e;
    e = cub::DeviceRadixSort::SortPairs(scratch, bytes, keys_in, keys_out, values_in, values_out, n,
                                        0, 32, stream);
    cudaError_t freed = cudaFreeAsync(scratch, stream);
    return (int)(e != cudaSuccess ? e : freed);
}

// out[0] = the sum of in[0..n) with CUB on `stream`.
extern "C" int hosted_sum(const float* in, float* out, int n, cudaStream_t stream) {
    size_t bytes = 0;
    cudaError_t e = cub::DeviceReduce::Sum(nullptr, bytes, in, out, n, stream);
    if (e != cudaSuccess) return (int)e;
    void* scratch = nullptr;
    e = cudaMallocAsync(&scratch, bytes, stream);
    if (e != cudaSuccess) return (int)e;
    e = cub::DeviceReduce::Sum(scratch, bytes, in, out, n, stream);
    cudaError_t freed = cudaFreeAsync(scratch, stream);
    return (int)(e != cudaSuccess ? e : freed);
}

// Host code next to kernels, compiled into the crate by `Build::host_code`: a launcher that
// launches a kernel of this file with `<<<...>>>` on the caller's stream, CUB's device-wide
// radix sort of pairs, sum, exclusive scan and segmented sum, and Thrust's sort_by_key, all
// on buffers the Rust side allocated.
#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

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

// Runs a CUB device-wide algorithm as CUB asks: once to size its scratch memory, once with
// it (from the stream-ordered allocator, freed after on the same stream).
template <typename Algorithm>
static cudaError_t with_scratch(cudaStream_t stream, Algorithm run) {
    size_t bytes = 0;
    cudaError_t e = run(nullptr, bytes);
    if (e != cudaSuccess) return e;
    void* scratch = nullptr;
    e = cudaMallocAsync(&scratch, bytes, stream);
    if (e != cudaSuccess) return e;
    e = run(scratch, bytes);
    cudaError_t freed = cudaFreeAsync(scratch, stream);
    return e != cudaSuccess ? e : freed;
}

// Sorts n (key, value) pairs by key with CUB on `stream`.
extern "C" int hosted_sort_pairs(const unsigned* keys_in, unsigned* keys_out, const float* values_in,
                                 float* values_out, int n, cudaStream_t stream) {
    return (int)with_scratch(stream, [&](void* scratch, size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(scratch, bytes, keys_in, keys_out, values_in,
                                               values_out, n, 0, 32, stream);
    });
}

// out[0] = the sum of in[0..n) with CUB on `stream`.
extern "C" int hosted_sum(const float* in, float* out, int n, cudaStream_t stream) {
    return (int)with_scratch(stream, [&](void* scratch, size_t& bytes) {
        return cub::DeviceReduce::Sum(scratch, bytes, in, out, n, stream);
    });
}

// out[i] = the sum of in[0..i) (exclusive prefix sum) with CUB on `stream`.
extern "C" int hosted_exclusive_scan(const int* in, int* out, int n, cudaStream_t stream) {
    return (int)with_scratch(stream, [&](void* scratch, size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(scratch, bytes, in, out, n, stream);
    });
}

// out[s] = the sum of in[offsets[s]..offsets[s + 1]) for s < segments, with CUB on `stream`.
extern "C" int hosted_segmented_sum(const float* in, float* out, int segments, const int* offsets,
                                    cudaStream_t stream) {
    return (int)with_scratch(stream, [&](void* scratch, size_t& bytes) {
        return cub::DeviceSegmentedReduce::Sum(scratch, bytes, in, out, segments, offsets,
                                               offsets + 1, stream);
    });
}

// Sorts values by keys in place with Thrust on `stream`.
extern "C" int hosted_thrust_sort_by_key(unsigned* keys, float* values, int n, cudaStream_t stream) {
    thrust::device_ptr<unsigned> k(keys);
    thrust::device_ptr<float> v(values);
    thrust::sort_by_key(thrust::cuda::par.on(stream), k, k + n, v);
    return (int)cudaGetLastError();
}

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

// Busy-waits about `cycles` clock cycles, then sets x[i] = v for i < n: a slow writer, to
// show that later readers on other streams wait for it.
extern "C" __global__ void spin_then_fill(float* x, float v, int n, long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}

// Launches `scale` through the CUDA runtime on `stream`; returns the launch's cudaError_t.
extern "C" cudaError_t hosted_scale(float* x, float s, int n, cudaStream_t stream) {
    scale<<<(n + 255) / 256, 256, 0, stream>>>(x, s, n);
    return cudaGetLastError();
}

// Copies n floats from host memory to `dev` and scales them there, on the legacy default
// stream (no stream parameter): the copy is synchronous, the launch is not.
extern "C" cudaError_t hosted_upload_scaled(const float* host, float* dev, float s, int n) {
    cudaError_t e = cudaMemcpy(dev, host, sizeof(float) * (size_t)n, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) return e;
    scale<<<(n + 255) / 256, 256>>>(dev, s, n);
    return cudaGetLastError();
}

// Sets x[0..n) to zero on `stream` (a function returning nothing).
extern "C" void hosted_clear(float* x, int n, cudaStream_t stream) {
    cudaMemsetAsync(x, 0, sizeof(float) * (size_t)n, stream);
}

// Makes `ordinal` the runtime's current device (an error for a device that does not exist).
extern "C" cudaError_t hosted_select_device(int ordinal) { return cudaSetDevice(ordinal); }

// The version of the CUDA runtime linked into the binary (1000 * major + 10 * minor).
extern "C" int hosted_runtime_version(void) {
    int v = 0;
    return cudaRuntimeGetVersion(&v) == cudaSuccess ? v : -1;
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
extern "C" cudaError_t hosted_sort_pairs(const unsigned* keys_in, unsigned* keys_out, const float* values_in,
                                 float* values_out, int n, cudaStream_t stream) {
    return with_scratch(stream, [&](void* scratch, size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(scratch, bytes, keys_in, keys_out, values_in,
                                               values_out, n, 0, 32, stream);
    });
}

// out[0] = the sum of in[0..n) with CUB on `stream`.
extern "C" cudaError_t hosted_sum(const float* in, float* out, int n, cudaStream_t stream) {
    return with_scratch(stream, [&](void* scratch, size_t& bytes) {
        return cub::DeviceReduce::Sum(scratch, bytes, in, out, n, stream);
    });
}

// out[i] = the sum of in[0..i) (exclusive prefix sum) with CUB on `stream`.
extern "C" cudaError_t hosted_exclusive_scan(const int* in, int* out, int n, cudaStream_t stream) {
    return with_scratch(stream, [&](void* scratch, size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(scratch, bytes, in, out, n, stream);
    });
}

// out[s] = the sum of in[offsets[s]..offsets[s + 1]) for s < segments, with CUB on `stream`.
extern "C" cudaError_t hosted_segmented_sum(const float* in, float* out, int segments, const int* offsets,
                                    cudaStream_t stream) {
    return with_scratch(stream, [&](void* scratch, size_t& bytes) {
        return cub::DeviceSegmentedReduce::Sum(scratch, bytes, in, out, segments, offsets,
                                               offsets + 1, stream);
    });
}

// Sorts values by keys in place with Thrust on `stream`.
extern "C" cudaError_t hosted_thrust_sort_by_key(unsigned* keys, float* values, int n, cudaStream_t stream) {
    thrust::device_ptr<unsigned> k(keys);
    thrust::device_ptr<float> v(values);
    thrust::sort_by_key(thrust::cuda::par.on(stream), k, k + n, v);
    return cudaGetLastError();
}

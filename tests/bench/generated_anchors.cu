// Baselines for benches/generated_kernels.rs, built and run on the GPU machine in the same
// call: CUB's DeviceReduce::Sum and DeviceScan::InclusiveSum on 2^26 floats (temporary
// storage allocated once, as CUB's users do), and cudaMemcpyAsync device to device.
// GPU time of 20 back-to-back calls between two events, fastest of 7, as the benchmark.
//
//   nvcc -O3 -arch=sm_90 generated_anchors.cu -o /tmp/generated_anchors && /tmp/generated_anchors
#include <cub/cub.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::printf("%s failed: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

template <typename F>
static float fastest_us(F f) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    f();
    float best = 1e30f;
    for (int rep = 0; rep < 7; ++rep) {
        cudaEventRecord(a);
        for (int k = 0; k < 20; ++k) f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        best = std::min(best, ms * 1000.0f / 20.0f);
    }
    return best;
}

int main() {
    const size_t n = size_t(1) << 26;
    std::vector<float> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = 0.25f + float(i % 1000) / 1000.0f;
    float *x, *y, *out;
    CHECK(cudaMalloc(&x, n * 4));
    CHECK(cudaMalloc(&y, n * 4));
    CHECK(cudaMalloc(&out, 4));
    CHECK(cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice));
    size_t reduce_bytes = 0, scan_bytes = 0;
    cub::DeviceReduce::Sum(nullptr, reduce_bytes, x, out, (int)n);
    cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, x, y, (int)n);
    void *reduce_tmp, *scan_tmp;
    CHECK(cudaMalloc(&reduce_tmp, reduce_bytes));
    CHECK(cudaMalloc(&scan_tmp, scan_bytes));
    float copy = fastest_us([&] { cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice); });
    float sum = fastest_us([&] { cub::DeviceReduce::Sum(reduce_tmp, reduce_bytes, x, out, (int)n); });
    float scan = fastest_us([&] { cub::DeviceScan::InclusiveSum(scan_tmp, scan_bytes, x, y, (int)n); });
    CHECK(cudaDeviceSynchronize());
    double bytes = double(n) * 4;
    std::printf("anchor.cuda_memcpy_dtod_gbs %.1f GB/s\n", 2 * bytes / copy / 1e3);
    std::printf("anchor.cub_reduce_sum_us %.1f us (%.1f GB/s)\n", sum, bytes / sum / 1e3);
    std::printf("anchor.cub_inclusive_sum_us %.1f us (%.1f GB/s)\n", scan, 2 * bytes / scan / 1e3);
    return 0;
}

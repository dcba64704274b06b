// Fifteen kernels of the kinds a small model library holds: elementwise maps, row-wise
// reductions with shared memory and warp shuffles, a tiled transpose and product, a scan,
// a histogram, a convolution. Used to time NVRTC against nvcc for one architecture.
#include <cuda_fp16.h>

#define BLOCK 256
#define TILE 32

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ float block_sum(float v) {
    __shared__ float part[32];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < (blockDim.x >> 5) ? part[threadIdx.x] : 0.0f;
    if (threadIdx.x < 32) v = warp_sum(v);
    return v;
}

extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void relu(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" __global__ void gelu(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}

extern "C" __global__ void bias_add(float* x, const float* bias, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) x[i] += bias[i % cols];
}

extern "C" __global__ void to_half(const float* x, __half* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2half(x[i]);
}

extern "C" __global__ void softmax_rows(const float* x, float* y, int cols) {
    const float* in = x + blockIdx.x * cols;
    float* out = y + blockIdx.x * cols;
    float m = -3.402823466e38f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, in[c]);
    __shared__ float row_max;
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (threadIdx.x == 0) row_max = m;
    __syncthreads();
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(in[c] - row_max);
    s = block_sum(s);
    __shared__ float total;
    if (threadIdx.x == 0) total = s;
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = __expf(in[c] - row_max) / total;
}

extern "C" __global__ void layernorm_rows(const float* x, const float* g, const float* b,
                                          float* y, int cols, float eps) {
    const float* in = x + blockIdx.x * cols;
    float s = 0.0f, s2 = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        s += in[c];
        s2 += in[c] * in[c];
    }
    __shared__ float mean, rstd;
    s = block_sum(s);
    __syncthreads();
    s2 = block_sum(s2);
    if (threadIdx.x == 0) {
        mean = s / cols;
        rstd = rsqrtf(s2 / cols - mean * mean + eps);
    }
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        y[blockIdx.x * cols + c] = (in[c] - mean) * rstd * g[c] + b[c];
}

extern "C" __global__ void reduce_sum(const float* x, float* out, int n) {
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i];
    s = block_sum(s);
    if (threadIdx.x == 0) atomicAdd(out, s);
}

extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y)
        if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void matmul(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float as[TILE][TILE], bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        as[threadIdx.y][threadIdx.x] = (row < m && t + threadIdx.x < k) ? a[row * k + t + threadIdx.x] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < k) ? b[(t + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int e = 0; e < TILE; ++e) acc += as[threadIdx.y][e] * bs[e][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) c[row * n + col] = acc;
}

extern "C" __global__ void scan_block(const int* x, int* y, int n) {
    __shared__ int buf[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    buf[threadIdx.x] = i < n ? x[i] : 0;
    __syncthreads();
    for (int o = 1; o < BLOCK; o <<= 1) {
        int v = threadIdx.x >= o ? buf[threadIdx.x - o] : 0;
        __syncthreads();
        buf[threadIdx.x] += v;
        __syncthreads();
    }
    if (i < n) y[i] = buf[threadIdx.x];
}

extern "C" __global__ void histogram(const unsigned char* x, unsigned int* bins, int n) {
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[x[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

extern "C" __global__ void conv1d(const float* x, const float* w, float* y, int n, int taps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int t = 0; t < taps; ++t) {
        int j = i + t - taps / 2;
        if (j >= 0 && j < n) s += x[j] * w[t];
    }
    y[i] = s;
}

extern "C" __global__ void adam_step(float* p, const float* g, float* m, float* v, int n,
                                     float lr, float b1, float b2, float eps, int step) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    m[i] = b1 * m[i] + (1.0f - b1) * g[i];
    v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
    float mh = m[i] / (1.0f - powf(b1, step)), vh = v[i] / (1.0f - powf(b2, step));
    p[i] -= lr * mh / (sqrtf(vh) + eps);
}

extern "C" __global__ void hash_dropout(float* x, int n, float keep, unsigned int seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int h = (unsigned int)i * 2654435761u ^ seed;
    h ^= h >> 16; h *= 0x7feb352du; h ^= h >> 15; h *= 0x846ca68bu; h ^= h >> 16;
    x[i] = (h & 0xffffff) < (unsigned int)(keep * 16777216.0f) ? x[i] / keep : 0.0f;
}

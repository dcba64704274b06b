// Kernels for the runtime's GPU tests and benchmarks. Every kernel is extern "C" so that its
// symbol is its name. Built into runtime_test.fatbin by build.sh.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// The benchmark kernel: four arguments, no work (the same as the shared anchors' empty4).
extern "C" __global__ void empty4(const float* a, float* b, int n, float s) {}

extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// y = c0 + c1 x + c2 x^2 + c3 x^3 with the coefficients in constant memory.
__constant__ float coeffs[4];
extern "C" __global__ void poly(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = coeffs[0] + x[i] * (coeffs[1] + x[i] * (coeffs[2] + x[i] * coeffs[3]));
}

// Sums n values into a __device__ global.
__device__ unsigned long long total;
extern "C" __global__ void accumulate(const unsigned* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&total, (unsigned long long)x[i]);
}

// At most 128 threads per block.
extern "C" __global__ void __launch_bounds__(128) bounded(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= 2.0f;
}

// Reverses each block's chunk through dynamic shared memory placed at `offset` floats into it,
// so that a launch can ask for more than 48 KiB and use its far end.
extern "C" __global__ void reverse_blocks(const float* x, float* y, int n, int offset) {
  extern __shared__ float smem[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float* s = smem + offset;
  s[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  if (j < n) y[j] = s[threadIdx.x];
}

// Cooperative: every block adds its chunk into partial[blockIdx], the grid syncs, then block 0
// sums the partials into partial[gridDim.x].
extern "C" __global__ void grid_sum(const float* x, float* partial, int n) {
  cg::grid_group grid = cg::this_grid();
  __shared__ float acc;
  if (threadIdx.x == 0) acc = 0.0f;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&acc, x[i]);
  __syncthreads();
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float t = 0.0f;
    for (unsigned b = 0; b < gridDim.x; b++) t += partial[b];
    partial[gridDim.x] = t;
  }
}

// Each block writes its rank within its cluster (sm_90 and later; -1 elsewhere).
extern "C" __global__ void cluster_rank(int* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (threadIdx.x == 0) out[blockIdx.x] = (int)cg::this_cluster().block_rank();
#else
  if (threadIdx.x == 0) out[blockIdx.x] = -1;
#endif
}

// float4 lanes: c = a + b.
extern "C" __global__ void add4(const float4* a, const float4* b, float4* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = make_float4(a[i].x + b[i].x, a[i].y + b[i].y, a[i].z + b[i].z, a[i].w + b[i].w);
}

// Writes through whatever address it is given (the fault test passes an invalid one).
extern "C" __global__ void poke(int* p) { *p = 1; }

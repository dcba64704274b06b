// Kernels for the reliability tests (reliability_faults.rs, reliability_load.rs). Every kernel is
// extern "C" so that its symbol is its name. Built by build.sh into reliability.fatbin (SASS for
// sm_75..sm_120 plus compute_75 PTX, so the PTX can be JIT-compiled for any of those GPUs) and
// sm80_only.fatbin (sm_80 SASS alone).

// Writes the __CUDA_ARCH__ the running code was compiled for: 750 when the driver JIT-compiled
// the compute_75 PTX, the SASS target's value (800, 900, ...) when it picked a cubin.
extern "C" __global__ void arch_probe(int* out) {
#ifdef __CUDA_ARCH__
  if (blockIdx.x == 0 && threadIdx.x == 0) *out = __CUDA_ARCH__;
#endif
}

// x[i] += v: exact in integers, so a long chain of launches has one right answer.
extern "C" __global__ void add_u32(unsigned* x, int n, unsigned v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += v;
}

extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// 16 KiB of static shared memory plus whatever dynamic shared memory the launch asks for: each
// block reverses its chunk of x through the static buffer and writes the last dynamic float.
#define STATIC_FLOATS 4096
extern "C" __global__ void static_smem(const float* x, float* y, int n, int dynamic_floats) {
  __shared__ float fixed[STATIC_FLOATS];
  extern __shared__ float dyn[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  fixed[threadIdx.x] = i < n ? x[i] : 0.0f;
  if (threadIdx.x == 0 && dynamic_floats > 0) dyn[dynamic_floats - 1] = 1.0f;
  __syncthreads();
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  float last = dynamic_floats > 0 ? dyn[dynamic_floats - 1] : 1.0f;
  if (j < n) y[j] = fixed[threadIdx.x] * last;
}

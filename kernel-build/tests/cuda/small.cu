// A small module for committed test fixtures and fuzzing seeds: scalar, pointer and struct
// parameters, no parameters, launch bounds and a __constant__ global.
extern "C" {
__constant__ float coeffs[4];
}

extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] * coeffs[i % 4] + y[i];
}

struct P { float x; double y; int z; };
extern "C" __global__ void withstruct(P p, P* out) { *out = p; }

extern "C" __global__ void __launch_bounds__(128) noparams() {}

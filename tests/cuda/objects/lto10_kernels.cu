// Ten kernels calling device functions defined in lto10_funcs.cu, for timing run-time links.
extern __device__ float f0(float);
extern __device__ float f1(float);
#define K(N) extern "C" __global__ void k##N(const float* x, float* y, int n) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < n) y[i] = f0(x[i]) * (N + 1) + f1(x[i] + N); }
K(0) K(1) K(2) K(3) K(4) K(5) K(6) K(7) K(8) K(9)

#include "common.cuh"
// x[i] = t.a * x[i] + t.b
extern "C" __global__ void affine(float* x, Affine t, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = apply(t, x[i]);
}

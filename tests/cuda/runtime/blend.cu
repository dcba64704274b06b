// out[i] = bias + sum over l of w[l] * x[i * WIDTH + l]
#include "weights.cuh"

extern "C" __global__ void blend(Weights p, const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = p.bias;
    for (int l = 0; l < WIDTH; ++l) s += p.w[l] * x[i * WIDTH + l];
    out[i] = s;
}

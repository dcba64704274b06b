// Kernels for graphs with conditional nodes: a WHILE loop that runs until a counter on the
// device reaches zero, and an IF whose flag a kernel reads from device memory.
#include <cuda_runtime.h>

extern "C" __global__ void set_counter(int* counter, int value) {
    if (blockIdx.x == 0 && threadIdx.x == 0) counter[0] = value;
}

// x[i] += 1 for i < n.
extern "C" __global__ void bump(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

// One iteration done: the loop goes on while the counter stays above zero.
extern "C" __global__ void count_down(int* counter, cudaGraphConditionalHandle go) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int left = --counter[0];
        cudaGraphSetConditional(go, left > 0 ? 1u : 0u);
    }
}

// The IF's condition from a flag in device memory.
extern "C" __global__ void gate(const int* flag, cudaGraphConditionalHandle then) {
    if (blockIdx.x == 0 && threadIdx.x == 0) cudaGraphSetConditional(then, flag[0] != 0 ? 1u : 0u);
}

// x[i] *= s for i < n.
extern "C" __global__ void scale(float* x, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

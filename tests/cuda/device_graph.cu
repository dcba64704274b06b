// A graph launched from device code: `launch_graph`, itself run in a graph, launches the
// device-launchable graph it is given when a flag in device memory is set.
#include <cuda_runtime.h>

// x[i] += 1 for i < n.
extern "C" __global__ void bump(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

extern "C" __global__ void launch_graph(cudaGraphExec_t graph, const int* flag) {
    if (blockIdx.x == 0 && threadIdx.x == 0 && flag[0] != 0) {
        cudaGraphLaunch(graph, cudaStreamGraphFireAndForget);
    }
}

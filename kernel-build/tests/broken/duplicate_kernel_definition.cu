// The same kernel defined twice.
extern "C" __global__ void scale(float* x, int n) {}

extern "C" __global__ void scale(float* x, int n) {}

// A block comment that never ends.
extern "C" __global__ void scale(float* x, int n) {}
/* opened here
extern "C" __global__ void shift(float* x, int n) {}

// An #if without its #endif.
#if 1
extern "C" __global__ void scale(float* x, int n) {}

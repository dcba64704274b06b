// A configuration check that fails.
extern "C" __global__ void scale(float* x, int n) {}
#ifndef BLOCK
#error "BLOCK must be defined"
#endif

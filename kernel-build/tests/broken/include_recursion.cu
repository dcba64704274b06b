// Includes itself without a guard.
#include "include_recursion.cu"
extern "C" __global__ void scale(float* x, int n) {}

// Two extern "C" kernels of one name with different parameters.
extern "C" __global__ void scale(float* x, int n) {}

extern "C" __global__ void scale(double* x, int n) {}

// A second definition of a kernel name that cuda/multi/scale.cu defines.

extern "C" __global__ void affine(float* x, int n) { x[0] = n; }

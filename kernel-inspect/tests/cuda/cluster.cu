// A kernel with a compile-time cluster shape (sm_90 and newer only).
extern "C" __global__ void __cluster_dims__(2, 1, 1) clustered(float* p) { p[threadIdx.x] = 0; }

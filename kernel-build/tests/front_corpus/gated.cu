// A kernel present only in images for sm_90 and newer.
extern "C" __global__ void everywhere(float* p) {}
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
extern "C" __global__ void __cluster_dims__(2, 1, 1) clustered(float* p) { p[threadIdx.x] = 0; }
#endif

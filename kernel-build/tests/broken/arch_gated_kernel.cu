// A kernel compiled only for sm_90 and newer: absent from the sm_80 image.
extern "C" __global__ void everywhere(float* p) {}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
extern "C" __global__ void only_hopper(float* p) {}
#endif

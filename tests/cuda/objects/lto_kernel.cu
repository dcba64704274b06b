// A kernel calling a device function defined in another file (lto_poly.cu): linked at run
// time from LTO-IR. y[i] = poly(x[i]) for i < n.
extern __device__ float poly(float x);

extern "C" __global__ void apply_poly(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = poly(x[i]);
}

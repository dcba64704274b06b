// Windows line endings: the error must still be on line 4.
extern "C" __global__ void scale(float* x, int n) {
    int i = threadIdx.x;
    if (i < n) x[i] = undefined_name;
}

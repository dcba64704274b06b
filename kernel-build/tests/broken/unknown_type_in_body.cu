// A local variable of an undeclared type.
extern "C" __global__ void scale(float* x, int n) {
    int i = threadIdx.x;
    accumulator acc = 0;
    if (i < n) x[i] = acc;
}

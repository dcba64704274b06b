// A string literal that never ends.
extern "C" __global__ void scale(float* x, int n) {
    const char* s = "no end;
}

// A kernel must return void.
extern "C" __global__ int count(const int* x, int n) { return n; }

// A kernel cannot take a variable argument list.
extern "C" __global__ void log_all(int n, ...) {}

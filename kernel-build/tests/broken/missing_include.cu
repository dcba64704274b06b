// Includes a header that does not exist.
#include "no_such_header.h"
extern "C" __global__ void scale(float* x, int n) {}

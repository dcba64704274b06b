// The header it includes does not compile.
#include "include/broken_typedef.h"
extern "C" __global__ void scale(real* x, int n) {}

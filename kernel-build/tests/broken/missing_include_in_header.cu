// The header it includes includes a header that does not exist.
#include "include/includes_missing.h"
extern "C" __global__ void scale(real* x, int n) {}

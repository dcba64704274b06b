// Parameters aligned to more than the parameter buffer's 16 bytes: a TMA descriptor
// (`CUtensorMap`, aligned to 128) by value, after a scalar, and a params struct holding two
// of them, as CUTLASS's Hopper kernels take theirs. Where the compiler puts them depends on
// the target's constant bank, so sm_80 and sm_90 images place them differently.
#include <cuda.h>

struct Loads {
    CUtensorMap a;
    CUtensorMap b;
    int k;
};

extern "C" __global__ void two_maps(const __grid_constant__ Loads p, float* out) {
    out[0] = (float)p.k + (float)(p.a.opaque[0] != p.b.opaque[0]);
}

extern "C" __global__ void map_after(int n, const __grid_constant__ CUtensorMap m, float* out) {
    out[0] = (float)n + (float)(m.opaque[0] != 0);
}

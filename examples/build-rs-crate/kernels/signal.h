// Shared by the kernels of the `signal` module.
#pragma once

#ifndef BLOCK
#define BLOCK 256
#endif

// An affine map v -> scale * v + offset, passed to kernels by value.
struct Affine {
    float scale;
    float offset;
};

__device__ inline float apply(Affine t, float v) { return t.scale * v + t.offset; }

// i clamped to [0, n).
__device__ inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

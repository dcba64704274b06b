#pragma once
// An affine map, passed to kernels by value.
struct Affine { float a; float b; };
static __device__ float apply(Affine t, float v) { return t.a * v + t.b; }

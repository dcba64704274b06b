// A by-value parameter larger than the kernel parameter space allows.
struct Huge { char bytes[40000]; };
extern "C" __global__ void take(Huge h, int* out) { out[0] = h.bytes[0]; }

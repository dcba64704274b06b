// A parameter passed by value whose type is only declared.
struct Opaque;
extern "C" __global__ void take(Opaque o) {}

// A parameter of a type declared nowhere.
extern "C" __global__ void fill(float* x, int n) {}

extern "C" __global__ void paint(widget* w, int n) {}

// Device code calling a host-only function.
int host_only(int v) { return v + 1; }
extern "C" __global__ void bump(int* x) {
    x[0] = host_only(x[0]);
}

// A compile-time assertion that fails.
struct Pair { float a; double b; };
static_assert(sizeof(Pair) == 12, "Pair must be packed");
extern "C" __global__ void first(Pair* p, int n) {}

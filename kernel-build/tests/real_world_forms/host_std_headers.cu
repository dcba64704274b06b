// Host-side headers of the C++ standard library pulled into a kernel file, as the host code
// of real libraries does: libstdc++'s <atomic> declares `using __atomic_base<_PTp*>::operator=;`
// inside a struct, a using-declaration of an operator.
#include <atomic>
#include <mutex>

namespace host {
struct Base {
    Base& operator=(int) { return *this; }
};
struct Counter : Base {
    using Base::operator=;
    std::atomic<int> hits{0};
};
inline void touch(Counter* c) { c->hits.fetch_add(1); }
}  // namespace host

extern "C" __global__ void scale(float* x, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

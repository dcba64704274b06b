// An explicit specialization after the template was used with the same arguments.
template <typename T> __global__ void scale(T* x, int n) {}
void launch(float* x) { scale<<<1,1>>>(x, 1); }
template <> __global__ void scale<float>(float* x, int n) {}

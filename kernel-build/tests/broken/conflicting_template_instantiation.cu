// The same template kernel explicitly instantiated twice.
template <typename T> __global__ void scale(T* x, int n) {}
template __global__ void scale<float>(float*, int);
template __global__ void scale<float>(float*, int);

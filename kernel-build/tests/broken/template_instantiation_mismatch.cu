// An explicit instantiation whose parameter list matches no template.
template <typename T> __global__ void scale(T* x, int n) {}
template __global__ void scale<float>(float*, int);
template __global__ void scale<float>(double*, int);

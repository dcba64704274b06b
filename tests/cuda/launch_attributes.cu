// Kernels for the launch attributes of current GPUs: a pair chained by programmatic
// dependent launch (the second may start while the first runs, and waits with
// `griddepcontrol.wait` before reading what the first wrote), and a kernel with a large
// dynamic shared memory for cluster occupancy.

// a[i] = 2 * x[i]; then lets the dependent grid start.
extern "C" __global__ void produce(float* a, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = 2.0f * x[i];
    // Every thread's writes come before the trigger in program order; the dependent grid's
    // `griddepcontrol.wait` returns once this grid has completed and flushed its memory.
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

// b[i] = a[i] + y[i], where a is produce's output: y is read before the wait (it does not
// depend on the first kernel), a after it.
extern "C" __global__ void consume(float* b, const float* a, const float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float own = i < n ? y[i] : 0.0f;
    asm volatile("griddepcontrol.wait;" ::: "memory");
    if (i < n) b[i] = a[i] + own;
}

// out[i] = 3 * x[i] through dynamic shared memory.
extern "C" __global__ void staged(float* out, const float* x, int n) {
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = 3.0f * tile[threadIdx.x];
}

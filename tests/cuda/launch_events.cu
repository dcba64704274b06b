// Kernels for the events a launch fires (compute capability 9.0 and later), each built so that
// a wrong event shows as a wrong result or a recorded timeout, never as a hang:
//
// - `first` fires a programmatic event; `second`, on another stream that waited on it, may
//   start while `first` still runs (it sets a flag `first` waits for, up to a limit) and reads,
//   after `griddepcontrol.wait`, what `first` wrote both before and after it triggered;
// - `resident` fires a completion event; `check_started`, on another stream that waited on it,
//   finds every block of `resident` started, then sets the flag those blocks wait for;
// - `gate` holds its stream for a while, so that a wait that does not wait is seen.

// The global nanosecond timer.
__device__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Spins until *flag == epoch, or for `limit_ns`; whether the flag came.
__device__ bool wait_flag(const volatile unsigned* flag, unsigned epoch, unsigned long long limit_ns) {
    unsigned long long start = now_ns();
    while (*flag != epoch) {
        if (now_ns() - start > limit_ns) return false;
        __nanosleep(500);
    }
    return true;
}

// Holds its stream for `ns` nanoseconds.
extern "C" __global__ void gate(unsigned long long ns) {
    unsigned long long start = now_ns();
    while (now_ns() - start < ns) __nanosleep(1000);
}

// a[i] = 2 x[i]; triggers its dependents; each block waits up to `wait_ns` for `second` to
// signal that it started (counting the blocks that gave up); then b[i] = x[i] + 1, written
// after the trigger.
extern "C" __global__ void first(float* a, float* b, const float* x, int n, const unsigned* flag,
                                 unsigned epoch, unsigned long long wait_ns, unsigned* timed_out) {
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) a[i] = 2.0f * x[i];
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    if (threadIdx.x == 0 && !wait_flag(flag, epoch, wait_ns)) atomicAdd(timed_out, 1u);
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) b[i] = x[i] + 1.0f;
}

// Signals that it started, waits for `first` to complete, then out[i] = a[i] + b[i] + y[i].
extern "C" __global__ void second(float* out, const float* a, const float* b, const float* y,
                                  int n, unsigned* flag, unsigned epoch) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        *(volatile unsigned*)flag = epoch;
        __threadfence();
    }
    asm volatile("griddepcontrol.wait;" ::: "memory");
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = a[i] + b[i] + y[i];
}

// Each block marks itself started, waits for the flag, then out[i] = 3 x[i].
extern "C" __global__ void resident(float* out, const float* x, int n, unsigned* started,
                                    const unsigned* flag, unsigned epoch, unsigned* timed_out) {
    if (threadIdx.x == 0) {
        *(volatile unsigned*)&started[blockIdx.x] = epoch;
        __threadfence();
        if (!wait_flag(flag, epoch, 1000000000ull)) atomicAdd(timed_out, 1u);
    }
    __syncthreads();
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = 3.0f * x[i];
}

// Counts the blocks of `resident` not yet started, then sets the flag they wait for.
extern "C" __global__ void check_started(const unsigned* started, int blocks, unsigned* missing,
                                         unsigned* flag, unsigned epoch) {
    for (int b = threadIdx.x; b < blocks; b += blockDim.x)
        if (((const volatile unsigned*)started)[b] != epoch) atomicAdd(missing, 1u);
    __syncthreads();
    if (threadIdx.x == 0) {
        *(volatile unsigned*)flag = epoch;
        __threadfence();
    }
}

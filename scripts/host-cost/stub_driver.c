/*
 * A stub of the CUDA driver (libcuda.so.1) for measuring the host's own cost of a launch.
 *
 * Every call succeeds at once and does no work: a launch reaches the stub's cuLaunchKernel
 * through exactly the code it takes on a GPU (the runtime's, cudarc's), and what the stub
 * adds is a return. It describes one device like an H100 (sm_90, 132 multiprocessors) so
 * that validation has real limits. Handles are distinct heap blocks; device addresses count
 * up from 4 GiB and are never dereferenced.
 *
 * It exists for scripts/host-cost.sh and must never stand in for a driver anywhere else:
 * kernels do not run, copies copy nothing, events and streams are always complete.
 *
 * Signatures follow cuda.h; the header is not needed (every type crossing the boundary is a
 * pointer, an integer or a handle, and CUresult 0 is CUDA_SUCCESS).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;

static char primary_context[64];
static CUdeviceptr next_address = 1ull << 32;

/* A fresh handle: distinct, never freed (the runs are short). */
static void *handle(void) { return calloc(1, 64); }

static CUdeviceptr device_alloc(size_t bytes) {
    CUdeviceptr p = next_address;
    next_address += (bytes + 4095) & ~(CUdeviceptr)4095;
    return p;
}

CUresult cuInit(unsigned flags) { (void)flags; return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return 0; }
CUresult cuDeviceGetName(char *s, int len, CUdevice d) {
    (void)d;
    strncpy(s, "stub driver (no device)", (size_t)len);
    return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) { (void)d; *bytes = 80ull << 30; return 0; }
CUresult cuDeviceGetUuid(unsigned char *u, CUdevice d) { (void)d; memset(u, 0x5a, 16); return 0; }
CUresult cuDeviceGetUuid_v2(unsigned char *u, CUdevice d) { return cuDeviceGetUuid(u, d); }

/* CUdevice_attribute values from cuda.h; any other attribute reads 1 (supported). */
CUresult cuDeviceGetAttribute(int *v, int attribute, CUdevice d) {
    (void)d;
    switch (attribute) {
    case 1: /* MAX_THREADS_PER_BLOCK */
    case 2: /* MAX_BLOCK_DIM_X */
    case 3: /* MAX_BLOCK_DIM_Y */ *v = 1024; break;
    case 4: /* MAX_BLOCK_DIM_Z */ *v = 64; break;
    case 5: /* MAX_GRID_DIM_X */ *v = 2147483647; break;
    case 6: /* MAX_GRID_DIM_Y */
    case 7: /* MAX_GRID_DIM_Z */ *v = 65535; break;
    case 8: /* MAX_SHARED_MEMORY_PER_BLOCK */ *v = 49152; break;
    case 10: /* WARP_SIZE */ *v = 32; break;
    case 16: /* MULTIPROCESSOR_COUNT */ *v = 132; break;
    case 39: /* MAX_THREADS_PER_MULTIPROCESSOR */ *v = 2048; break;
    case 75: /* COMPUTE_CAPABILITY_MAJOR */ *v = 9; break;
    case 76: /* COMPUTE_CAPABILITY_MINOR */ *v = 0; break;
    case 81: /* MAX_SHARED_MEMORY_PER_MULTIPROCESSOR */ *v = 233472; break;
    case 82: /* MAX_REGISTERS_PER_MULTIPROCESSOR */ *v = 65536; break;
    case 97: /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */ *v = 232448; break;
    default: *v = 1; break;
    }
    return 0;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d) { (void)d; *ctx = primary_context; return 0; }
CUresult cuCtxGetCurrent(void **ctx) { *ctx = primary_context; return 0; }
CUresult cuCtxGetDevice(CUdevice *d) { *d = 0; return 0; }
CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) { *least = 0; *greatest = -5; return 0; }

CUresult cuStreamCreate(void **s, unsigned flags) { (void)flags; *s = handle(); return 0; }
CUresult cuStreamCreateWithPriority(void **s, unsigned flags, int priority) {
    (void)flags; (void)priority; *s = handle(); return 0;
}
CUresult cuStreamIsCapturing(void *s, int *status) { (void)s; *status = 0; return 0; }
CUresult cuStreamEndCapture(void *s, void **graph) { (void)s; *graph = handle(); return 0; }
CUresult cuEventCreate(void **e, unsigned flags) { (void)flags; *e = handle(); return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 1.0f; return 0; }
CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b) { return cuEventElapsedTime(ms, a, b); }
CUresult cuGraphCreate(void **g, unsigned flags) { (void)flags; *g = handle(); return 0; }
CUresult cuGraphInstantiateWithFlags(void **exec, void *g, unsigned long long flags) {
    (void)g; (void)flags; *exec = handle(); return 0;
}

CUresult cuModuleLoadData(void **m, const void *image) { (void)image; *m = handle(); return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) { (void)m; (void)name; *f = handle(); return 0; }
/* CUfunction_attribute: 0 MAX_THREADS_PER_BLOCK, 5 PTX_VERSION, 6 BINARY_VERSION; others 0. */
CUresult cuFuncGetAttribute(int *v, int attribute, void *f) {
    (void)f;
    switch (attribute) {
    case 0: *v = 1024; break;
    case 5:
    case 6: *v = 90; break;
    default: *v = 0; break;
    }
    return 0;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int threads, size_t shared) {
    (void)f; (void)threads; (void)shared; *n = 8; return 0;
}

CUresult cuMemAllocAsync(CUdeviceptr *p, size_t bytes, void *s) { (void)s; *p = device_alloc(bytes); return 0; }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) { *p = device_alloc(bytes); return 0; }
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) { *free_bytes = 70ull << 30; *total = 80ull << 30; return 0; }
CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned flags) { (void)flags; *p = malloc(bytes ? bytes : 1); return 0; }
CUresult cuMemAllocHost_v2(void **p, size_t bytes) { *p = malloc(bytes ? bytes : 1); return 0; }
CUresult cuMemFreeHost(void *p) { free(p); return 0; }

CUresult cuGetErrorString(int e, const char **s) { (void)e; *s = "stub driver error"; return 0; }
CUresult cuGetErrorName(int e, const char **s) { (void)e; *s = "CUDA_ERROR_STUB"; return 0; }

/* Calls with nothing to hand back: they succeed. (Each takes its arguments in registers and
 * ignores them; eleven covers cuLaunchKernel, the longest.) */
#define SUCCEEDS(name)                                                                        \
    CUresult name(void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h,    \
                  void *i, void *j, void *k) {                                               \
        (void)a; (void)b; (void)c; (void)d; (void)e; (void)f; (void)g; (void)h; (void)i;     \
        (void)j; (void)k;                                                                    \
        return 0;                                                                            \
    }
SUCCEEDS(cuCtxSetCurrent)
SUCCEEDS(cuCtxSynchronize)
SUCCEEDS(cuCtxPushCurrent_v2)
SUCCEEDS(cuCtxPopCurrent_v2)
SUCCEEDS(cuDevicePrimaryCtxRelease_v2)
SUCCEEDS(cuLaunchKernel)
SUCCEEDS(cuLaunchKernelEx)
SUCCEEDS(cuLaunchHostFunc)
SUCCEEDS(cuFuncSetAttribute)
SUCCEEDS(cuFuncSetCacheConfig)
SUCCEEDS(cuModuleUnload)
SUCCEEDS(cuStreamSynchronize)
SUCCEEDS(cuStreamQuery)
SUCCEEDS(cuStreamWaitEvent)
SUCCEEDS(cuStreamDestroy_v2)
SUCCEEDS(cuStreamBeginCapture_v2)
SUCCEEDS(cuEventRecord)
SUCCEEDS(cuEventRecordWithFlags)
SUCCEEDS(cuEventSynchronize)
SUCCEEDS(cuEventQuery)
SUCCEEDS(cuEventDestroy_v2)
SUCCEEDS(cuMemFreeAsync)
SUCCEEDS(cuMemFree_v2)
SUCCEEDS(cuMemsetD8Async)
SUCCEEDS(cuMemsetD32Async)
SUCCEEDS(cuMemcpyAsync)
SUCCEEDS(cuMemcpyHtoDAsync_v2)
SUCCEEDS(cuMemcpyDtoHAsync_v2)
SUCCEEDS(cuMemcpyDtoDAsync_v2)
SUCCEEDS(cuMemHostRegister_v2)
SUCCEEDS(cuMemHostUnregister)
SUCCEEDS(cuGraphUpload)
SUCCEEDS(cuGraphLaunch)
SUCCEEDS(cuGraphExecDestroy)
SUCCEEDS(cuGraphDestroy)

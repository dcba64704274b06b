// A TMA copy: each block loads one 32 x 32 tile of a row-major float matrix through a
// tensor map (`cp.async.bulk.tensor` with an mbarrier, through libcu++'s wrappers) and
// writes the tile's in-bounds elements to `out` (rows x cols, packed).
#include <cuda.h>
#include <cuda/barrier>

using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

constexpr int TILE = 32;

extern "C" __global__ void tma_tiles(const __grid_constant__ CUtensorMap in, float* out, int rows, int cols) {
    __shared__ alignas(128) float tile[TILE][TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier bar;
    int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    barrier::arrival_token token;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, &in, x0, y0, bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    for (int i = threadIdx.x; i < TILE * TILE; i += blockDim.x) {
        int y = y0 + i / TILE, x = x0 + i % TILE;
        if (y < rows && x < cols) out[(size_t)y * cols + x] = tile[i / TILE][i % TILE];
    }
}

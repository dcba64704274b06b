"""CuPy's ElementwiseKernel and ReductionKernel on 2^26 float32, beside
benches/generated_kernels.rs (same timing: 20 calls between events, fastest of 7)."""
import cupy as cp

n = 1 << 26
x = cp.random.random(n, dtype=cp.float32) + 0.25
y = cp.empty_like(x)
out = cp.empty((), dtype=cp.float32)
scale = cp.ElementwiseKernel("float32 a, float32 x", "float32 y", "y = a * x", "anchor_scale")
axpy = cp.ElementwiseKernel("float32 a, float32 x", "float32 y", "y = a * x + y", "anchor_axpy")
total = cp.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "anchor_sum")


def fastest_us(f):
    f()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    best = float("inf")
    for _ in range(7):
        start.record()
        for _ in range(20):
            f()
        end.record()
        end.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, end) * 1000 / 20)
    return best


b = n * 4
t = fastest_us(lambda: scale(cp.float32(2), x, y))
print(f"anchor.cupy_elementwise_scale_gbs {2 * b / t / 1e3:.1f} GB/s")
t = fastest_us(lambda: axpy(cp.float32(2), x, y))
print(f"anchor.cupy_elementwise_axpy_gbs {3 * b / t / 1e3:.1f} GB/s")
t = fastest_us(lambda: total(x, out=out))
print(f"anchor.cupy_reduction_sum_us {t:.1f} us ({b / t / 1e3:.1f} GB/s)")
t = fastest_us(lambda: cp.cumsum(x, out=y))
print(f"anchor.cupy_cumsum_us {t:.1f} us ({2 * b / t / 1e3:.1f} GB/s)")

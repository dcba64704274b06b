"""Triton's @triton.autotune over the sum of examples/tuned_reduction.rs: the same sixteen
shapes (128, 256, 512 or 1024 threads a block, 1, 2, 4 or 8 elements a thread, one
atomic add a block), keyed by the size, at the same five sizes, on the same kind of data
(float32 of either sign, magnitudes in [0.25, 2]).

For each size it prints the shape chosen (named as the example names its variants), the time
of the first call (which times every shape), and the mean time of a settled call in
microseconds (200 calls between two CUDA events after one warm-up call, as the example's
`mean_time`), and checks the sum against float64's.

One command runs both:

    cargo run --release -p kernel-examples --example tuned_reduction && \
        python3 tests/bench/tuned_reduction_anchor.py
"""
import time

import torch
import triton
import triton.language as tl

SIZES = [1 << 12, 1 << 16, 1 << 20, 1 << 22, 1 << 24]
REPS = 200

# BLOCK (elements a program sums) = threads x items; a program runs num_warps x 32 threads.
CONFIGS = [
    triton.Config({"BLOCK": threads * items}, num_warps=threads // 32)
    for threads in (128, 256, 512, 1024)
    for items in (1, 2, 4, 8)
]


@triton.autotune(configs=CONFIGS, key=["n"], reset_to_zero=["total"])
@triton.jit
def block_sum(x, total, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n, other=0.0)
    tl.atomic_add(total, tl.sum(v, axis=0))


def call(x, total, n):
    block_sum[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, total, n)


def mean_us(f):
    f()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(REPS):
        f()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1000.0 / REPS


def main():
    generator = torch.Generator(device="cuda").manual_seed(54)
    print(f"== tuned_reduction (Triton {triton.__version__}, {torch.cuda.get_device_name()}) ==")
    ok = True
    for n in SIZES:
        magnitude = torch.rand(n, device="cuda", generator=generator) * 1.75 + 0.25
        sign = torch.randint(0, 2, (n,), device="cuda", generator=generator) * 2 - 1
        x = (magnitude * sign).to(torch.float32)
        total = torch.zeros(1, device="cuda", dtype=torch.float32)
        started = time.perf_counter()
        call(x, total, n)
        torch.cuda.synchronize()
        first_ms = (time.perf_counter() - started) * 1e3
        got = float(total.item())
        want = float(x.double().sum().item())
        tolerance = 1e-5 * float(x.abs().double().sum().item()) + 1e-3
        best = block_sum.best_config
        threads = best.num_warps * 32
        items = best.kwargs["BLOCK"] // threads
        chosen = f"block{threads}_items{items}"
        settled = mean_us(lambda: call(x, total, n))
        good = abs(got - want) <= tolerance
        ok = ok and good
        print(
            f"n = {n:>9}: chose {chosen:<18} first call {first_ms:>8.1f} ms, "
            f"settled call {settled:>9.3f} us, {n * 4 / settled / 1e3:>7.1f} GB/s, "
            f"sum {got:.3f} (float64 {want:.3f}) {'ok' if good else 'WRONG'}"
        )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env bash
# Times building a 15-kernel module for the default target list:
#   cold:  our pipeline with no cache (preprocess + parse + nvcc + verify)
#   nvcc:  plain `nvcc -fatbin` with the same targets and flags
#   warm:  our pipeline with a warm cache (no nvcc run)
# Usage: scripts/bench-build.sh [RUNS]   (default 7; prints the median of each)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
runs="${1:-7}"
"$root/scripts/ensure-nvcc.sh" >/dev/null
cargo build --release -q -p cuda-kernel-inspect
inspect="${CARGO_TARGET_DIR:-$root/target}/release/cuda-kernel-inspect"
src="$root/kernel-build/benches/cuda/k15.cu"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The nvcc our pipeline uses, and the gencode list it passes (from its own report).
json=$("$inspect" build "$src" --no-cache --json)
nvcc=$(KERNEL_BUILD_DEBUG=1 "$inspect" build "$src" --no-cache 2>&1 >/dev/null | sed -n 's/^cuda-kernel-build: running \([^ ]*\) -fatbin.*/\1/p' | head -n1)
targets=$(python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)["targets"]))' <<<"$json")
gencodes=()
for t in $targets; do
    n=${t#*_}
    case $t in sm_*) gencodes+=(-gencode "arch=compute_$n,code=sm_$n");; compute_*) gencodes+=(-gencode "arch=compute_$n,code=compute_$n");; esac
done
echo "nvcc: $nvcc"
echo "targets: $targets"
"$inspect" build "$src" --cache-dir "$work/cache" >/dev/null   # fill the cache for the warm runs
python3 - "$runs" "$inspect" "$src" "$work" "$nvcc" "${gencodes[@]}" <<'PY'
import statistics, subprocess, sys, time
runs, inspect, src, work, nvcc, gencodes = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
cmds = {
    "cold (ours, no cache)": [inspect, "build", src, "--no-cache"],
    "plain nvcc -fatbin":    [nvcc, "-fatbin", "--threads", "0", *gencodes, "-o", f"{work}/plain.fatbin", "-x", "cu", src],
    "warm (ours, cached)":   [inspect, "build", src, "--cache-dir", f"{work}/cache"],
}
times = {k: [] for k in cmds}
for _ in range(runs):
    for name, cmd in cmds.items():   # interleaved, so drift affects all alike
        t = time.perf_counter(); subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL); times[name].append(time.perf_counter() - t)
for name, ts in times.items():
    print(f"{name:24} median {statistics.median(ts)*1e3:9.1f} ms   min {min(ts)*1e3:9.1f}   max {max(ts)*1e3:9.1f}")
cold, plain = statistics.median(times["cold (ours, no cache)"]), statistics.median(times["plain nvcc -fatbin"])
print(f"cold / plain nvcc = {cold/plain:.3f}")
PY

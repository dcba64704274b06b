#!/usr/bin/env bash
# Measures the CUDA front end on third-party sources (kept outside the repository):
# every `.cu` file is compiled by plain nvcc for one target (sm_90 unless --arch), built through `cuda-kernel-inspect build`,
# and every kernel of the reference cubin must be in the module with equal parameter layouts
# (typed, or by name only with the image's layout).
#
#   scripts/real-world.sh [-j N] [--default-targets] [--arch sm_90a] [--std c++20] [-I DIR]... [-D NAME=VALUE]... [--nvcc-flag=F]... DIR...
#
# Prints a Markdown table per directory (with its build time against plain nvcc's, summed over
# the files) and a total (docs/REAL_WORLD.md records them).
# KERNEL_INSPECT names a prebuilt cuda-kernel-inspect (otherwise it is built here, release);
# NVCC names the reference nvcc (otherwise the one cuda-kernel-build discovers: CUDA_PATH,
# PATH, /usr/local/cuda, the project's wheels).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
inspect="${KERNEL_INSPECT:-}"
if [ -z "$inspect" ]; then
    cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p cuda-kernel-inspect
    inspect="$root/target/release/cuda-kernel-inspect"
fi
nvcc="${NVCC:-}"
if [ -z "$nvcc" ]; then
    for c in "${CUDA_PATH:-}/bin/nvcc" "$(command -v nvcc || true)" /usr/local/cuda/bin/nvcc \
        "$root/.cuda-toolkit/nvidia/cu13/bin/nvcc"; do
        if [ -n "$c" ] && [ -x "$c" ]; then nvcc="$c"; break; fi
    done
fi
[ -n "$nvcc" ] || { echo "real-world: no nvcc found (set NVCC, or run scripts/install-cuda-toolkit.sh)" >&2; exit 1; }
exec python3 "$root/scripts/real_world.py" --inspect "$inspect" --nvcc "$nvcc" "$@"

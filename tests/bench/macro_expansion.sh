#!/usr/bin/env bash
# Measures how long `cargo check` of a crate holding one 15-kernel `cuda_module!`
# takes when the macro expansion is cold (empty cuda-kernel-build cache: nvcc runs) and
# warm (cache hit: no nvcc), against a parse-only expansion (no device code).
#
# Usage: tests/bench/macro_expansion.sh [runs]   (from the workspace root)
set -euo pipefail

runs="${1:-5}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$work/target}"
# The crate lives outside the workspace: point it at the workspace's toolkit, if any.
if [ -z "${NVCC:-}" ] && [ -d "$root/.cuda-toolkit" ]; then
    export KERNEL_CUDA_TOOLKIT_DIR="$root/.cuda-toolkit"
fi

mkdir -p "$work/crate/src"
cat > "$work/crate/Cargo.toml" <<TOML
[package]
name = "expansion-bench"
version = "0.0.0"
edition = "2024"
publish = false
[dependencies]
cuda-kernel-runtime = { path = "$root/kernel-runtime" }
[workspace]
TOML

{
    echo 'cuda_kernel_runtime::cuda_module! {'
    echo '    /// Fifteen kernels.'
    echo '    pub mod fifteen {'
    echo '        source = r#"'
    for i in $(seq 1 15); do
        echo "            extern \"C\" __global__ void k$i(float a, const float* x, float* y, int n) {"
        echo "                int i = blockIdx.x * blockDim.x + threadIdx.x;"
        echo "                if (i < n) y[i] = a * x[i] + y[i] * $i.0f;"
        echo "            }"
    done
    echo '        "#;'
    echo '        arch = ["sm_80", "sm_90", "compute_90"];'
    echo '    }'
    echo '}'
    echo 'pub use fifteen::load;'
} > "$work/crate/src/lib.rs"

check() { (cd "$work/crate" && cargo check --quiet 2>&1); }
now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc; }

# Dependencies first, so that only the crate itself is timed.
KERNEL_BUILD_NO_DEVICE_CODE=1 check >/dev/null

echo "mode,run,seconds"
for r in $(seq 1 "$runs"); do
    export KERNEL_BUILD_CACHE_DIR="$work/cache-$r"
    touch "$work/crate/src/lib.rs"; t0=$(now); check; t1=$(now)
    echo "cold,$r,$(elapsed "$t0" "$t1")"
    touch "$work/crate/src/lib.rs"; t0=$(now); check; t1=$(now)
    echo "warm,$r,$(elapsed "$t0" "$t1")"
    touch "$work/crate/src/lib.rs"; t0=$(now); KERNEL_BUILD_NO_DEVICE_CODE=1 check; t1=$(now)
    echo "parse-only,$r,$(elapsed "$t0" "$t1")"
done

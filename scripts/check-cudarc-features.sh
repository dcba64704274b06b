#!/usr/bin/env bash
# Lints the runtime (clippy's type check plus its lints, -D warnings) under the cudarc features an
# application may unify into its build: candle-core 0.11's set (cudarc's `dynamic-linking`, the
# version taken from nvcc), the other linking modes, and each CUDA binding version the runtime
# forwards. Sets that keep the default version lint the library, tests and benches; sets that
# turn it off lint the library alone (the tests' helper crate asks for the default version, and
# two versions do not build). Nothing is linked or run: no GPU, driver or CUDA library is needed. The sets that take the version from nvcc need one (found as the build finds it: NVCC,
# CUDA_PATH/CUDA_HOME, PATH, /usr/local/cuda, the project-local .cuda-toolkit) and are skipped,
# saying so, without it. Combinations cudarc itself refuses are not tried: two version features
# (conflicting bindings), or two of `dynamic-loading`, `dynamic-linking` and `static-linking`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"

# candle-core 0.11's cudarc features (what its `cuda` feature turns on).
candle=""
for f in std cublas cublaslt curand driver nvrtc f16 f8 cuda-version-from-build-system dynamic-linking; do
    candle="${candle:+$candle,}cudarc/$f"
done

# The folder of an nvcc, for cudarc's `cuda-version-from-build-system` (it runs `nvcc --version`).
nvcc_dir=""
if [ -n "${NVCC:-}" ] && [ -x "${NVCC}" ]; then
    nvcc_dir="$(dirname "$NVCC")"
elif command -v nvcc >/dev/null 2>&1; then
    nvcc_dir="$(dirname "$(command -v nvcc)")"
else
    for d in "${CUDA_PATH:-}" "${CUDA_HOME:-}" /usr/local/cuda "$root/.cuda-toolkit/nvidia/cu13"; do
        if [ -n "$d" ] && [ -x "$d/bin/nvcc" ]; then
            nvcc_dir="$d/bin"
            break
        fi
    done
fi

# cudarc's static linking bundles the toolkit's static archives (and libstdc++.a) into its rlib,
# even for a type check; empty archives stand in for them, found through CUDA_TOOLKIT_ROOT_DIR.
placeholders="$target/cudarc-static-check"
mkdir -p "$placeholders/lib64"
for lib in stdc++ cudart_static nvrtc_static nvptxcompiler_static nvrtc-builtins_static; do
    [ -f "$placeholders/lib64/lib$lib.a" ] || printf '!<arch>\n' >"$placeholders/lib64/lib$lib.a"
done

passed=0
failed=()
skipped=()

# check NAME [VAR=VALUE...] -- CARGO-ARGS...
check() {
    local name="$1"
    shift
    local vars=()
    while [ "$1" != "--" ]; do
        vars+=("$1")
        shift
    done
    shift
    local targets=--all-targets
    case " $* " in *" --no-default-features "*) targets=--lib ;; esac
    echo "-- $name: ${vars[*]:+${vars[*]} }cargo clippy -p cuda-kernel-runtime-core -p cuda-kernel-runtime $targets $*"
    if env ${vars[@]+"${vars[@]}"} cargo clippy -q -p cuda-kernel-runtime-core -p cuda-kernel-runtime $targets "$@" -- -D warnings; then
        passed=$((passed + 1))
    else
        failed+=("$name")
    fi
}

# check_with_nvcc: as check, with nvcc's folder first on PATH (skipped without one).
check_with_nvcc() {
    local name="$1"
    shift
    if [ -z "$nvcc_dir" ]; then
        echo "-- $name: skipped, no nvcc found"
        skipped+=("$name")
        return
    fi
    echo "-- (nvcc from $nvcc_dir)"
    PATH="$nvcc_dir:$PATH" check "$name" "$@"
}

check "default: dynamic loading, CUDA 13.0 bindings" --
check "candle-core 0.11's set, the runtime's CUDA 13.0 bindings" -- --features "$candle"
check_with_nvcc "candle-core 0.11's set, bindings from nvcc" -- --no-default-features --features "$candle"
check "candle-core 0.11's set, CUDA 12.8 bindings" -- --no-default-features --features "cuda-12080,$candle"
check "the runtime's dynamic-linking, NCCL, CUDA 13.1 bindings" -- \
    --no-default-features --features dynamic-linking,nccl,cuda-13010
check "cudarc's dynamic-loading named, CUDA 12.9 bindings" -- \
    --no-default-features --features cuda-12090,cudarc/dynamic-loading
check "the runtime's static-linking (placeholder archives)" "CUDA_TOOLKIT_ROOT_DIR=$placeholders" -- \
    --features static-linking
check "no version feature, CUDARC_CUDA_VERSION=12080" CUDARC_CUDA_VERSION=12080 -- --no-default-features
check_with_nvcc "the runtime's cuda-version-from-build-system" -- \
    --no-default-features --features cuda-version-from-build-system

echo "check-cudarc-features: ${passed} built, ${#failed[@]} failed, ${#skipped[@]} skipped"
if [ "${#failed[@]}" -gt 0 ]; then
    printf 'failed: %s\n' "${failed[@]}"
    exit 1
fi

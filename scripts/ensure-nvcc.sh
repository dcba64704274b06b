#!/usr/bin/env bash
# Installs the project-local nvcc wheels (and the libraries named with --with) unless an nvcc
# is already findable the way cuda-kernel-build looks for one (NVCC, CUDA_PATH/CUDA_HOME, PATH,
# /usr/local/cuda):
#   scripts/ensure-nvcc.sh                  # nvcc alone (what the examples need)
#   scripts/ensure-nvcc.sh --with cutlass   # and CUTLASS's headers (what the tests need)
# With a toolkit of the system's, the libraries must come with it (see the README).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -n "${NVCC:-}" ] && [ -x "${NVCC}" ]; then exit 0; fi
for d in "${CUDA_PATH:-}" "${CUDA_HOME:-}"; do
    if [ -n "$d" ] && [ -x "$d/bin/nvcc" ]; then exit 0; fi
done
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then exit 0; fi
exec "$root/scripts/install-cuda-toolkit.sh" "$@"

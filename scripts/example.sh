#!/usr/bin/env bash
# Builds and runs one example (default: saxpy), installing nvcc first if none is found:
#   scripts/example.sh            scripts/example.sh matmul
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/ensure-nvcc.sh"
name="${1:-saxpy}"
shift || true
exec cargo run --release -p kernel-examples --example "$name" -- "$@"

#!/usr/bin/env bash
# The project's test command: installs nvcc (NVIDIA's pip wheels, project-local) when
# no CUDA toolkit is found, then runs every test of the workspace. GPU tests skip with a
# printed reason when no driver is present (set KERNEL_REQUIRE_GPU=1 to make them fail).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/ensure-nvcc.sh"
cargo test --workspace --all-targets "$@"
cargo test --workspace --doc

#!/usr/bin/env bash
# The project's test command: installs nvcc and CUTLASS's headers (NVIDIA's pip wheels,
# project-local) when no CUDA toolkit is found, then runs every test of the workspace. GPU
# tests skip with a printed reason when no driver is present (set KERNEL_REQUIRE_GPU=1 to
# make them fail). The header differential test builds a sample of each header set
# (KERNEL_TEST_ALL_HEADERS=1: every header, about 8 more minutes of nvcc on 2 cores; CI sets it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# examples/build-rs-crate compiles CUTLASS kernels: its headers are a test need.
"$root/scripts/ensure-nvcc.sh" --with cutlass
# Built as CI builds: line tables only (backtraces keep file:line) and no incremental caches.
# Measured on 2 cores, each cuts a from-scratch build: full debug info -> line tables took the
# runtime and its tests from 166 s of CPU to 123 s; incremental -> not took the build library
# and its tests from 127 s to 106 s. A fraction of the disk, too. The crates the tests build
# with cargo inherit both; a plain `cargo test` keeps Cargo's defaults, its artifacts beside
# these. Values set by the caller win.
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# Cargo's own choice of targets (libraries, binaries, tests and doc tests; the examples
# built), as a plain `cargo test --workspace`: the benchmarks are left to `cargo bench`, and
# CI's clippy checks that they compile. Building them took 66 s more on 2 cores from an
# empty kernel cache (each of their modules compiled by nvcc), for programs that, run as
# tests, only say that there is no GPU to measure.
cargo test --workspace "$@"

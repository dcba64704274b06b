#!/usr/bin/env bash
# Publishing, checked without publishing: every publishable crate's name is either free on
# crates.io or already ours (same repository), and `cargo publish --dry-run` packages and
# builds each from its packaged sources alone, the workspace's crates resolved from each other.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
crates=(cuda-kernel-objects cuda-kernel-generate cuda-kernel-build cuda-kernel-inspect cuda-kernel-macros cuda-kernel-runtime)
ours=$(sed -n 's/^repository = "\(.*\)"/\1/p' Cargo.toml)
status=0
for crate in "${crates[@]}"; do
    if info=$(cargo info --registry crates-io "$crate" 2>&1); then
        if grep -q "$ours" <<<"$info"; then
            echo "$crate: on crates.io, ours"
        else
            echo "$crate: taken on crates.io by another project:" >&2
            sed 's/^/  /' <<<"$info" | head -8 >&2
            status=1
        fi
    elif grep -q "could not find" <<<"$info"; then
        echo "$crate: free on crates.io"
    else
        echo "$crate: crates.io could not be asked:" >&2
        sed 's/^/  /' <<<"$info" | tail -3 >&2
        status=1
    fi
done
[ "$status" = 0 ] || exit 1
args=()
for crate in "${crates[@]}"; do args+=(-p "$crate"); done
cargo publish --dry-run --allow-dirty "${args[@]}"

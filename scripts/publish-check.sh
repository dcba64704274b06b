#!/usr/bin/env bash
# Publishing, checked without publishing: every publishable crate's name is either free on
# crates.io or already ours (same repository), and `cargo publish --dry-run` packages and
# builds each from its packaged sources alone, the workspace's crates resolved from each other.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
crates=(cuda-kernel-objects cuda-kernel-generate cuda-kernel-build cuda-kernel-inspect cuda-kernel-macros cuda-kernel-runtime-core cuda-kernel-runtime)
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
# The dry run verifies each crate against the others through a registry of its own, which
# cargo unpacks under $CARGO_HOME/registry/src by name and version and never unpacks again,
# and whose builds it never checks against their sources (a registry's crates are taken to
# be immutable): a copy or a build left by an earlier dry run (an older commit, the same
# version) would be used instead of this one. None of these crates is on crates.io yet, so
# every unpacked copy of this version is such a leftover; the dry run builds in a target
# folder of its own, where every build of these crates is one.
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
export CARGO_TARGET_DIR="$root/target/publish-check"
for crate in "${crates[@]}"; do
    rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$crate-$version"
    rm -rf "$CARGO_TARGET_DIR"/debug/.fingerprint/"$crate"-*
done
args=()
for crate in "${crates[@]}"; do args+=(-p "$crate"); done
cargo publish --dry-run --allow-dirty "${args[@]}"

#!/usr/bin/env bash
# Runs one fuzz target of this cargo-fuzz project for a given time, seeded with the
# committed corpus.
#
#   usage: fuzz/run.sh TARGET SECONDS        e.g. fuzz/run.sh fatbin_reader 600
#
# Environment:
#   RUSTC_BOOTSTRAP=1   set here: cargo-fuzz passes nightly-only flags (-Zsanitizer, …);
#                       this lets a stable toolchain accept them.
#   FUZZ_SANITIZER      `address` (default) or `none` (build without a sanitizer where
#                       ASan is unavailable).
#   FUZZ_JOBS           parallel fuzzing jobs (default 1).
#
# New interesting inputs go to target/corpus/TARGET (not committed); the committed seeds in
# corpus/TARGET and the project's test inputs named in seeds.sh are only read. Crashes land
# in artifacts/TARGET; the exit status is non-zero when one is found. cargo-fuzz is
# installed with `cargo install` if missing.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 TARGET SECONDS" >&2
    exit 2
fi
target=$1
seconds=$2
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
# shellcheck source=seeds.sh
. ./seeds.sh

export RUSTC_BOOTSTRAP=1
sanitizer=${FUZZ_SANITIZER:-address}
jobs=${FUZZ_JOBS:-1}

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz" >&2
    cargo install --locked cargo-fuzz
fi

if [ ! -d "corpus/$target" ]; then
    echo "no seed corpus at corpus/$target" >&2
    exit 2
fi
mkdir -p "target/corpus/$target"

exec cargo fuzz run --sanitizer "$sanitizer" --jobs "$jobs" "$target" \
    "target/corpus/$target" "corpus/$target" $(shared_seed_dirs "$target") \
    -- -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10

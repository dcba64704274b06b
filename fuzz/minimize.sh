#!/usr/bin/env bash
# Merges the corpus a run grew (target/corpus/TARGET, see run.sh) back into the committed
# one (corpus/TARGET), minimised.
#
#   usage: fuzz/minimize.sh TARGET           e.g. fuzz/minimize.sh fatbin_reader
#
# The committed seeds with chosen names (anything not named by a 40-digit content hash) are
# kept as they are, and the project's test inputs named in seeds.sh count as seeds too (read
# in place, not copied into the corpus). Of all the other inputs, committed or grown, only enough to cover every
# edge the seeds do not already reach are kept, named by content hash: this is libFuzzer's
# `-merge=1`, the step `cargo fuzz cmin` runs, here with the seeds held fixed. It runs with
# `-use_counters=0` (edges, not hit counts), which keeps the committed corpus a few MB
# instead of several times that; a run re-grows the hit-count variety in minutes.
# Afterwards commit corpus/TARGET.
#
# Environment: as run.sh (RUSTC_BOOTSTRAP=1 is set here; FUZZ_SANITIZER, default `address`).
set -euo pipefail
shopt -s nullglob

if [ $# -ne 1 ]; then
    echo "usage: $0 TARGET" >&2
    exit 2
fi
target=$1
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
# shellcheck source=seeds.sh
. ./seeds.sh

export RUSTC_BOOTSTRAP=1
sanitizer=${FUZZ_SANITIZER:-address}
committed=corpus/$target
if [ ! -d "$committed" ]; then
    echo "no committed corpus at $committed" >&2
    exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/merged" "$work/candidates"
is_hashed() { [[ $(basename "$1") =~ ^[0-9a-f]{40}$ ]]; }
for file in "$committed"/*; do
    if is_hashed "$file"; then
        cp "$file" "$work/candidates/"
    else
        cp "$file" "$work/merged/"
    fi
done
for file in "target/corpus/$target"/*; do
    cp "$file" "$work/candidates/"
done
for dir in $(shared_seed_dirs "$target"); do
    cp "$dir"/* "$work/merged/"
done
echo "merging $(ls "$work/candidates" | wc -l) inputs into $(ls "$work/merged" | wc -l) seeds" >&2

cargo fuzz run --sanitizer "$sanitizer" "$target" "$work/merged" "$work/candidates" \
    -- -merge=1 -use_counters=0 -rss_limit_mb=2048 -timeout=10

for file in "$committed"/*; do
    if is_hashed "$file"; then
        rm "$file"
    fi
done
for file in "$work/merged"/*; do
    if is_hashed "$file"; then
        cp "$file" "$committed/"
    fi
done
echo "$committed: $(ls "$committed" | wc -l) files, $(du -sh "$committed" | cut -f1)" >&2

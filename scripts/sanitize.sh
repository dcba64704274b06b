#!/usr/bin/env bash
# Runs the GPU test binaries under compute-sanitizer (memcheck and racecheck by default)
# and prints one line per binary and tool with the sanitizer's error summary.
#
#   usage: scripts/sanitize.sh [BINARY ...]
#
# Binaries given as arguments run in the current directory. With no argument, builds the
# GPU test binaries of cuda-kernel-runtime(-core) and kernel-tests with cargo (release) and runs each in
# its package's directory, as `cargo test` does. Each binary runs with --test-threads=1, skipping the
# tests that fault a context on purpose or re-execute themselves under other settings
# (after_an_illegal_address_fault, fault_aftermath_child, ptx_jit_path_is_correct); the
# `fault` test binary, whose one test faults its own context, is left out of the list.
#
# Environment:
#   SANITIZE_TOOLS          tools to run (default "memcheck racecheck")
#   RELIABILITY_ITERATIONS  cycle count of the load tests (default here 300: the
#                           sanitizers slow every launch down by orders of magnitude)
#   SANITIZE_TIMEOUT        seconds per binary and tool (default 300)
#   OUT                     folder for the full logs (default target/sanitize)
#
# Binaries whose tests provoke driver errors on purpose (load_errors, reliability_faults)
# run with --report-api-errors no, so only memory errors and hazards count there.
# Exit status: non-zero when any run reports an error or fails.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export KERNEL_REQUIRE_GPU=1
export RELIABILITY_ITERATIONS=${RELIABILITY_ITERATIONS:-300}
tools=${SANITIZE_TOOLS:-memcheck racecheck}
out=${OUT:-$root/target/sanitize}
mkdir -p "$out"

# One "DIRECTORY<TAB>BINARY" line per binary to run.
if [ $# -gt 0 ]; then
    runs=$(for bin in "$@"; do printf '%s\t%s\n' "$PWD" "$(realpath "$bin")"; done)
else
    runs=$(cd "$root" && cargo test --release -p cuda-kernel-runtime-core -p cuda-kernel-runtime -p kernel-tests --tests --no-run \
        --message-format=json 2>/dev/null |
        python3 -c 'import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] not in ("ui", "fault"):
        print(os.path.dirname(m["manifest_path"]) + "\t" + m["executable"])')
fi

fails=0
while IFS=$'\t' read -r dir bin; do
    [ -n "$bin" ] || continue
    name=$(basename "$bin")
    api=()
    case $name in *load_errors* | *reliability_faults*) api=(--report-api-errors no) ;; esac
    for tool in $tools; do
        log="$out/$tool-$name.log"
        (cd "$dir" && timeout "${SANITIZE_TIMEOUT:-300}" compute-sanitizer --tool "$tool" "${api[@]}" \
            --error-exitcode 99 "$bin" --test-threads=1 \
            --skip after_an_illegal_address_fault --skip fault_aftermath_child \
            --skip ptx_jit_path_is_correct) >"$log" 2>&1
        rc=$?
        [ $rc -eq 0 ] || fails=$((fails + 1))
        summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$log" | tr '\n' ' ')
        echo "$tool $name rc=$rc $summary"
    done
done <<<"$runs"
echo "sanitizer runs failed: $fails (logs in $out)"
[ $fails -eq 0 ]

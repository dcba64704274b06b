#!/usr/bin/env bash
# The host's own cost of each launch path, without a GPU: the launch bench
# (kernel-runtime/benches/launch.rs) run over a stub CUDA driver whose every call returns at
# once (scripts/host-cost/stub_driver.c), so that what is timed is the runtime's and cudarc's
# code alone. On a GPU the driver's cuLaunchKernel costs 3 to 5 us and these nanoseconds ride
# on it; here they are all there is, which shows where a path spends them.
#
# Usage: scripts/host-cost.sh [--instructions]
#   prints the bench's single-stream and two-stream lines (us per launch, ratio to the stub's
#   raw cuLaunchKernel); with --instructions (needs valgrind) it also runs the bench's launch
#   section under callgrind and prints instructions per call of the launch paths' functions.
# Needs nvcc (for the bench's test kernels; scripts/ensure-nvcc.sh installs one) and a C compiler.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/ensure-nvcc.sh" >/dev/null
if [ -d "$root/.cuda-toolkit/nvidia/cu13/bin" ]; then
    export PATH="$root/.cuda-toolkit/nvidia/cu13/bin:$PATH"
fi
out="${CARGO_TARGET_DIR:-$root/target}/host-cost"
mkdir -p "$out"
"${CC:-cc}" -O2 -Wall -shared -fPIC -o "$out/libcuda.so.1" "$root/scripts/host-cost/stub_driver.c"
ln -sf libcuda.so.1 "$out/libcuda.so"
bench=$(cargo bench -p cuda-kernel-runtime --bench launch --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n1)
[ -x "$bench" ] || { echo "host-cost: the launch bench did not build" >&2; exit 1; }
export LD_LIBRARY_PATH="$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "stub driver: $out/libcuda.so.1 (every call returns at once; no kernel runs)"
"$bench" | grep -E '^(launch_host|streams)\.' | grep -v '_min'
if [ "${1:-}" = "--instructions" ]; then
    command -v valgrind >/dev/null || { echo "host-cost: --instructions needs valgrind" >&2; exit 1; }
    # The bench's launch section alone (both of its timings), counted inside bench_launch.
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$out/callgrind.out" \
        --toggle-collect='*12bench_launch*' "$bench" launch >/dev/null 2>&1
    callgrind_annotate --inclusive=yes --tree=caller "$out/callgrind.out" >"$out/callgrind.txt" 2>/dev/null
    python3 - "$out/callgrind.txt" <<'PY'
import re, subprocess, sys
# Functions on the launch paths: the stubs, the runtime's launch core and argument handling,
# cudarc's context check and raw launch.
wanted = re.compile(r"empty4|__private6launch|launch_kernel|launch_checked|launch_raw|prepare_use|"
                    r"prepare_shared_use|UseRecord6record|8validate8validate|bind_to_thread|"
                    r"sys14cuLaunchKernel|slot_ptr")
rows = []
for block in open(sys.argv[1]).read().split("\n\n"):
    lines = block.strip().split("\n")
    own = [l for l in lines if "*  " in l]
    if not own:
        continue
    name = own[0].split("*  ", 1)[1].split(":", 1)[-1].split(" [")[0]
    if not wanted.search(name):
        continue
    total = int(own[0].split()[0].replace(",", ""))
    calls = sum(int(c.replace(",", "")) for c in re.findall(r"\(([\d,]+)x\)", block))
    if calls:
        rows.append((total / calls, calls, name))
names = subprocess.run(["c++filt"], input="\n".join(r[2] for r in rows), capture_output=True,
                       text=True).stdout.split("\n")
print("instructions per call (inclusive), calls, function:")
for (per, calls, _), name in sorted(zip(rows, names), key=lambda r: -r[0][0]):
    print(f"{per:9.1f} {calls:>10}  {name}")
PY
fi

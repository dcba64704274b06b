#!/usr/bin/env bash
# Times building candle's kernel library ours and candle's way, side by side.
#
#   scripts/bench-candle.sh SRC [--cores N] [--repeat N] [--edit FILE] [--files ptx|all]
#                           [--rows abcd] [--out FILE.json]
#
# SRC is candle-kernels' `src` folder (0.11.1; fetched outside this repository, never
# committed). The files are the PTX set of candle-kernels' build.rs (every .cu under SRC but
# moe_*.cu, mmq_*.cu and mmvq_gguf.cu: 11 files), or with --files all every .cu directly in
# SRC (12: mmvq_gguf.cu too; row d still builds its own set). Every row uses candle's flags
# (-O3 -std=c++17 --expt-relaxed-constexpr):
#
#   (a) ours, default targets   cuda-kernel-inspect build FILES... -j CORES (empty cache)
#   (b) nvcc ×CORES             every file's nvcc -fatbin --threads 0 for the same targets,
#                               files run by xargs -P CORES
#   (c) ours, compute_90a       cuda-kernel-inspect build FILES... --arch compute_90a: PTX
#                               for the one architecture candle's builder targets with
#                               CUDA_COMPUTE_CAP=90, as it does (no SASS, so no ptxas in
#                               either: the same compiler work per file)
#   (d) candle's builder        candle-builder (benches/candle-builder: cudaforge's
#                               KernelBuilder as candle-kernels' build.rs runs it for its
#                               PTX set), CUDA_COMPUTE_CAP=90, an empty out folder
#
# each cold, then with FILE (default quantized.cu, the largest) edited: ours on its warm
# cache, (b) that file's nvcc alone, (d) on its out folder. With --repeat N every row runs N
# times, the rows interleaved, and medians are reported; --out is rewritten after every
# round, so a run stopped by a time limit leaves what it measured.
#
# KERNEL_INSPECT (default target/release/cuda-kernel-inspect), CANDLE_BUILDER (default
# benches/candle-builder/target/release/candle-builder) and NVCC (default: the nvcc
# cuda-kernel-inspect finds) select the tools; cudaforge runs with its own thread default
# (half the cores) unless CUDAFORGE_THREADS is set.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage="usage: scripts/bench-candle.sh SRC [--cores N] [--repeat N] [--edit FILE] [--files ptx|all] [--rows abcd] [--out FILE.json]"
src="${1:?$usage}"
shift
cores=$(nproc) repeat=1 edit=quantized.cu files=ptx rows=abcd out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --cores) cores="$2"; shift 2 ;;
        --repeat) repeat="$2"; shift 2 ;;
        --edit) edit="$2"; shift 2 ;;
        --files) files="$2"; shift 2 ;;
        --rows) rows="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        *) echo "bench-candle: unknown argument $1" >&2; echo "$usage" >&2; exit 2 ;;
    esac
done
inspect="${KERNEL_INSPECT:-$root/target/release/cuda-kernel-inspect}"
builder="${CANDLE_BUILDER:-$root/benches/candle-builder/target/release/candle-builder}"
[ -d "$src" ] || { echo "bench-candle: no folder $src" >&2; exit 1; }
[ -x "$inspect" ] || { echo "bench-candle: no cuda-kernel-inspect at $inspect (cargo build --release -p cuda-kernel-inspect)" >&2; exit 1; }
case "$rows" in *d*) [ -x "$builder" ] || { echo "bench-candle: no candle-builder at $builder (cargo build --release --manifest-path benches/candle-builder/Cargo.toml)" >&2; exit 1; } ;; esac
exec python3 - "$src" "$inspect" "$builder" "$cores" "$repeat" "$edit" "$files" "$rows" "$out" <<'PY'
import fnmatch, json, os, re, shutil, statistics, subprocess, sys, tempfile, time
src, inspect, builder, cores, repeat, edit, which, rows, out = sys.argv[1:10]
cores, repeat = int(cores), int(repeat)
work = tempfile.mkdtemp(prefix="bench-candle-")
lib = os.path.join(work, "src")
flags = ["-O3", "-std=c++17", "--expt-relaxed-constexpr"]

def ptx_set(root):
    """candle-kernels' build.rs PTX set: every .cu below root but its exclusions."""
    found = []
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(".cu") and not any(fnmatch.fnmatch(n, p) for p in ["moe_*.cu", "mmvq_gguf.cu", "mmq_*.cu"]):
                found.append(os.path.relpath(os.path.join(d, n), root))
    return sorted(found)

names = ptx_set(src) if which == "ptx" else sorted(n for n in os.listdir(src) if n.endswith(".cu"))
if edit not in names:
    sys.exit(f"bench-candle: {edit} is not among the files: {names}")

def run(cmd, env=None, stdin=None):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, stdin=stdin)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"bench-candle: failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-3000:]}{p.stderr[-3000:]}")
    return dt, p

def fresh_sources():
    shutil.rmtree(lib, ignore_errors=True)
    shutil.copytree(src, lib)   # edits touch a copy, never SRC

# The default targets and nvcc, from a tiny build.
tiny = os.path.join(work, "tiny.cu")
open(tiny, "w").write('extern "C" __global__ void tiny(int* x) { *x = 1; }\n')
_, p = run([inspect, "build", tiny, "--no-cache", "--json"])
targets = json.loads(p.stdout)["targets"]
_, p = run([inspect, "build", tiny, "--no-cache"], env=dict(os.environ, KERNEL_BUILD_DEBUG="1"))
nvcc = os.environ.get("NVCC") or re.search(r"cuda-kernel-build: running (\S+) -fatbin", p.stderr).group(1)
gencodes = []
for t in targets:
    gencodes += ["-gencode", f"arch=compute_{t.split('_', 1)[1]},code={t}"]
paths = [os.path.join(lib, n) for n in names]
edited = os.path.join(lib, edit)
forge_env = dict(os.environ, NVCC=nvcc, CUDA_COMPUTE_CAP="90")
forge_threads = os.environ.get("CUDAFORGE_THREADS") or os.environ.get("RAYON_NUM_THREADS") or f"{max(1, -(-os.cpu_count() // 2))} (half the cores)"
print(f"candle: {src}\nfiles ({len(names)}): {' '.join(names)}\nedited: {edit}\ntargets: {' '.join(targets)}\nnvcc: {nvcc}\ncores: {cores}\ncudaforge threads: {forge_threads}\nrows: {rows}, {repeat} run(s) each", flush=True)

def fl(prefix):
    return [x for f in flags for x in (prefix, f)] if prefix else list(flags)

lst = os.path.join(work, "files.txt")
open(lst, "w").write("\n".join(paths) + "\n")
os.makedirs(os.path.join(work, "b"), exist_ok=True)
nvcc_one = [nvcc, "-fatbin", "--threads", "0", *gencodes, *flags]
sh = " ".join(nvcc_one) + f' -o {work}/b/$(basename "$1").fatbin -x cu "$1"'

def ours(cache, arch):
    cmd = [inspect, "build", *paths, "--name", "candle", "--cache-dir", cache, "-j", str(cores), *fl("--flag")]
    return cmd + (["--arch", arch] if arch else [])

def report(final):
    """The medians so far into --out; at the end, the table and the ratios too."""
    med = {k: {m: statistics.median(v[m]) for m in v} for k, v in times.items() if v["cold"]}
    ratios = {}
    for num, den in [("a", "b"), ("c", "d")]:
        if num in med and den in med:
            for m in ["cold", "edited"]:
                ratios[f"{num}_over_{den}_{m}"] = med[num][m] / med[den][m]
    if out:
        res = {"src": src, "files": names, "edited": edit, "targets": targets, "cores": cores,
               "repeat": repeat, "nvcc": nvcc, "cudaforge_threads": forge_threads, "runs": times,
               "medians": med, "kernels": kernels, "ratios": ratios, "complete": final}
        json.dump(res, open(out, "w"), indent=1)
    if not final:
        return
    label = {
        "a": f"(a) ours, {len(targets)} targets, -j {cores}",
        "b": f"(b) nvcc -fatbin --threads 0, xargs -P {cores}",
        "c": f"(c) ours, compute_90a (PTX), -j {cores}",
        "d": "(d) candle's builder (cudaforge), CUDA_COMPUTE_CAP=90 (PTX)",
    }
    print(f"\n| build | cold (median of {repeat}) | {edit} edited | kernels |\n|---|---|---|---|")
    for k in sorted(med):
        print(f"| {label[k]} | {med[k]['cold']:.1f} s | {med[k]['edited']:.2f} s | {kernels.get(k, '-') if k != 'b' else '-'} |")
    for num, den in [("a", "b"), ("c", "d")]:
        if f"{num}_over_{den}_cold" in ratios:
            print(f"({num})/({den}): cold {ratios[f'{num}_over_{den}_cold']:.3f}, edited {ratios[f'{num}_over_{den}_edited']:.3f}")

times = {k: {"cold": [], "edited": []} for k in "abcd"}
kernels = {}
for r in range(repeat):
    fresh_sources()
    caches = {k: os.path.join(work, f"cache-{k}") for k in "ac"}
    forge_out = os.path.join(work, "forge-out")
    for d in [*caches.values(), forge_out]:
        shutil.rmtree(d, ignore_errors=True)
    cold = {}
    if "a" in rows:
        cold["a"], p = run(ours(caches["a"], None))
        print(f"  (a) cold: {cold['a']:.2f} s", flush=True)
        kernels["a"] = int(re.search(r"(\d+) kernels", p.stdout).group(1))
    if "b" in rows:
        cold["b"], _ = run(["xargs", "-P", str(cores), "-I{}", "sh", "-c", sh, "sh", "{}"], stdin=open(lst))
        print(f"  (b) cold: {cold['b']:.2f} s", flush=True)
    if "c" in rows:
        cold["c"], p = run(ours(caches["c"], "compute_90a"))
        print(f"  (c) cold: {cold['c']:.2f} s", flush=True)
        kernels["c"] = int(re.search(r"(\d+) kernels", p.stdout).group(1))
    if "d" in rows:
        os.makedirs(forge_out)
        cold["d"], _ = run([builder, lib, forge_out], env=forge_env)
        print(f"  (d) cold: {cold['d']:.2f} s", flush=True)
        kernels["d"] = sum(open(os.path.join(forge_out, f)).read().count(".entry ") for f in os.listdir(forge_out) if f.endswith(".ptx"))
    with open(edited, "a") as fh:
        fh.write(f"\n__device__ int bench_candle_edit_{r};\n")
    hot = {}
    if "a" in rows:
        hot["a"], _ = run(ours(caches["a"], None))
        print(f"  (a) edited: {hot['a']:.2f} s", flush=True)
    if "b" in rows:
        hot["b"], _ = run([*nvcc_one, "-o", os.path.join(work, "b", "edited.fatbin"), "-x", "cu", edited])
        print(f"  (b) edited: {hot['b']:.2f} s", flush=True)
    if "c" in rows:
        hot["c"], _ = run(ours(caches["c"], "compute_90a"))
        print(f"  (c) edited: {hot['c']:.2f} s", flush=True)
    if "d" in rows:
        hot["d"], p = run([builder, lib, forge_out], env=forge_env)
        print(f"  (d) edited: {hot['d']:.2f} s", flush=True)
        if "Compiling 1 of" not in p.stdout:
            sys.exit(f"bench-candle: candle's builder did not rebuild exactly the edited file:\n{p.stdout[-2000:]}")
    for k in cold:
        times[k]["cold"].append(cold[k])
        times[k]["edited"].append(hot[k])
    print(f"run {r + 1}: " + ", ".join(f"({k}) {cold[k]:.1f} s cold, {hot[k]:.2f} s edited" for k in sorted(cold)), flush=True)
    report(False)

report(True)

shutil.rmtree(work, ignore_errors=True)
PY

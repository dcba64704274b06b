#!/usr/bin/env bash
# Times building a multi-file CUDA library as ONE module, against plain nvcc.
#
#   scripts/bench-multi.sh DIR [-I DIR]... [--cores N] [--repeat N] [--out FILE.json]
#
# DIR holds the library's .cu files (e.g. llm.c's dev/cuda, fetched outside this
# repository). Files are taken in name order; a file that defines a kernel name an earlier
# file already defines, or that needs NCCL or MPI, is left out (named in the report), so
# that the rest forms one module. Every command uses the toolkit's default targets.
#
#   (a) ours, cold        cuda-kernel-inspect build FILES... (empty cache, -j CORES)
#   (b) nvcc, one by one  nvcc -fatbin per file, one after another (a naive build script)
#   (c) nvcc, parallel    nvcc -fatbin --threads 0 per file, files run by xargs -P CORES
#   then: no-op rebuild, one file touched but unchanged, one file edited (vs its nvcc time)
#   with --repeat N: (a) and (c) run N times, interleaved, and their medians are reported
#   with --link-modes: (a) again cold with --rdc and with --lto (build time, registers)
#
# KERNEL_INSPECT (default: target/release/cuda-kernel-inspect) and NVCC (default: the nvcc
# cuda-kernel-inspect finds) select the tools.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:?usage: scripts/bench-multi.sh DIR [-I DIR]... [--cores N] [--out FILE.json]}"
shift
includes=() cores=$(nproc) out="" modes=0 repeat=1
while [ $# -gt 0 ]; do
    case "$1" in
        -I) includes+=(-I "$2"); shift 2 ;;
        --cores) cores="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --link-modes) modes=1; shift ;;
        --repeat) repeat="$2"; shift 2 ;;
        *) echo "bench-multi: unknown argument $1" >&2; exit 2 ;;
    esac
done
inspect="${KERNEL_INSPECT:-$root/target/release/cuda-kernel-inspect}"
[ -x "$inspect" ] || { echo "bench-multi: no cuda-kernel-inspect at $inspect (cargo build --release -p cuda-kernel-inspect)" >&2; exit 1; }
exec python3 - "$dir" "$inspect" "$cores" "$out" "$modes" "$repeat" "${includes[@]}" <<'PY'
import json, os, re, shutil, statistics, subprocess, sys, tempfile, time
src_dir, inspect, cores, out, modes, repeat, includes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5] == "1", int(sys.argv[6]), sys.argv[7:]
work = tempfile.mkdtemp(prefix="bench-multi-")
lib = os.path.join(work, "lib")
shutil.copytree(src_dir, lib)   # edits below touch a copy, never the source
includes = includes + ["-I", lib]

# Files that form one module: unique kernel names, no NCCL/MPI.
kept, left, names = [], [], {}
for f in sorted(os.listdir(lib)):
    if not f.endswith(".cu"):
        continue
    text = open(os.path.join(lib, f), errors="replace").read()
    if re.search(r"#include\s*[<\"](nccl|mpi)\.h", text):
        left.append((f, "needs NCCL/MPI")); continue
    lb = r"(?:__launch_bounds__\s*\([^)]*\)\s*)?"
    ks = set(re.findall(r"__global__\s+" + lb + r"void\s+" + lb + r"(\w+)", text))
    clash = sorted(k for k in ks if k in names)
    if clash:
        left.append((f, f"kernel {clash[0]} also in {names[clash[0]]}")); continue
    for k in ks:
        names[k] = f
    kept.append(f)
paths = [os.path.join(lib, f) for f in kept]

def run(cmd, **kw):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"bench-multi: failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-3000:]}{p.stderr[-3000:]}")
    return dt, p

# The default targets and nvcc, from a tiny build.
tiny = os.path.join(work, "tiny.cu")
open(tiny, "w").write('extern "C" __global__ void tiny(int* x) { *x = 1; }\n')
_, p = run([inspect, "build", tiny, "--no-cache", "--json"])
targets = json.loads(p.stdout)["targets"]
env = dict(os.environ, KERNEL_BUILD_DEBUG="1")
_, p = run([inspect, "build", tiny, "--no-cache"], env=env)
nvcc = os.environ.get("NVCC") or re.search(r"cuda-kernel-build: running (\S+) -fatbin", p.stderr).group(1)
gencodes = []
for t in targets:
    n = t.split("_", 1)[1]
    gencodes += ["-gencode", f"arch=compute_{n},code={t}"]
print(f"library: {src_dir}\nfiles: {len(kept)} kept, {len(left)} left out: {left}\ntargets: {' '.join(targets)}\nnvcc: {nvcc}\ncores: {cores}", flush=True)

cache = os.path.join(work, "cache")
ours = [inspect, "build", *paths, *includes, "--cache-dir", cache, "-j", str(cores), "--name", "library"]
res = {"library": src_dir, "files": kept, "left_out": left, "targets": targets, "cores": cores}

lst = os.path.join(work, "files.txt")
open(lst, "w").write("\n".join(paths) + "\n")
os.makedirs(os.path.join(work, "c"), exist_ok=True)
sh = f'{nvcc} -fatbin --threads 0 {" ".join(gencodes)} {" ".join(includes)} -o {work}/c/$(basename "$1").fatbin -x cu "$1"'
a_times, c_times = [], []
for r in range(repeat):
    shutil.rmtree(cache, ignore_errors=True)
    t, p = run(ours)
    a_times.append(t)
    res["kernels"] = int(re.search(r"(\d+) kernels", p.stdout).group(1))
    c_times.append(run(["xargs", "-P", str(cores), "-I{}", "sh", "-c", sh, "sh", "{}"], stdin=open(lst))[0])
    print(f"run {r + 1}: (a) ours cold {a_times[-1]:.1f} s, (c) nvcc --threads 0 x {cores} {c_times[-1]:.1f} s", flush=True)
t_a, t_c = statistics.median(a_times), statistics.median(c_times)
res["a_ours_cold_s"], res["a_runs_s"] = t_a, a_times
res["c_nvcc_parallel_s"], res["c_runs_s"] = t_c, c_times
print(f"(a) ours cold: {t_a:.1f} s (median of {repeat}), {res['kernels']} kernels", flush=True)
print(f"(c) nvcc --threads 0, xargs -P {cores}: {t_c:.1f} s (median of {repeat})", flush=True)

per_file = {}
t0 = time.perf_counter()
for f, path in zip(kept, paths):
    dt, _ = run([nvcc, "-fatbin", *gencodes, *includes, "-o", os.path.join(work, "b.fatbin"), "-x", "cu", path])
    per_file[f] = dt
t_b = time.perf_counter() - t0
res["b_nvcc_serial_s"] = t_b
res["b_per_file_s"] = per_file
print(f"(b) nvcc one by one: {t_b:.1f} s", flush=True)


noop = min(run(ours)[0] for _ in range(5))
res["noop_s"] = noop
touched_file = paths[len(paths) // 2]
touches = []
for _ in range(5):
    os.utime(touched_file)   # new mtime, same bytes
    touches.append(run(ours)[0])
res["touched_s"] = min(touches)
edited = kept[len(kept) // 2]
with open(paths[len(paths) // 2], "a") as fh:
    fh.write("\n__device__ int bench_multi_edit_marker;\n")
t_e, _ = run(ours)
res["edited_file"] = edited
res["edited_s"] = t_e
res["edited_file_nvcc_s"] = per_file[edited]
print(f"no-op: {noop:.3f} s; touched: {res['touched_s']:.3f} s; edited {edited}: {t_e:.2f} s (its nvcc: {per_file[edited]:.2f} s)", flush=True)
print(f"(a)/(b) = {t_a/t_b:.3f}; (a)/(c) = {t_a/t_c:.3f}; edit / file nvcc = {t_e/per_file[edited]:.3f}")
res["a_over_b"], res["a_over_c"] = t_a / t_b, t_a / t_c

def registers(stdout):
    """Sum of registers per kernel on the newest SASS target, and that target."""
    m = json.loads(stdout)
    sass = [t for t in m["targets"] if t.startswith("sm_")][-1]
    return sass, sum(i["registers"] or 0 for k in m["info"]["kernels"] for i in k["images"] if i["target"] == sass)

if modes:
    for mode in ["whole", "rdc", "lto"]:
        flag = [] if mode == "whole" else [f"--{mode}"]
        cmd = ours[:-6] + ["--cache-dir", os.path.join(work, f"cache-{mode}"), "-j", str(cores), "--name", "library", *flag, "--json"]
        t = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        dt = time.perf_counter() - t
        if p.returncode != 0:
            why = (p.stderr.strip().splitlines() or ["?"])[:2]
            res[f"mode_{mode}_error"] = " / ".join(why)
            print(f"{mode}: fails after {dt:.1f} s: {' / '.join(why)[:300]}", flush=True)
            continue
        sass, regs = registers(p.stdout)
        res[f"mode_{mode}_s"], res[f"mode_{mode}_registers_{sass}"] = dt, regs
        print(f"{mode}: cold {dt:.1f} s, registers summed over kernels on {sass}: {regs}", flush=True)
if out:
    json.dump(res, open(out, "w"), indent=1)
shutil.rmtree(work, ignore_errors=True)
PY

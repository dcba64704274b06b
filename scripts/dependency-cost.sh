#!/usr/bin/env bash
# What depending on the runtime costs a new user's cold build, against cudarc alone:
#
#   scripts/dependency-cost.sh [RUNS] [OUT]     # RUNS (default 2) runs of the three crates
#
# Writes three tiny crates into a temporary folder, outside the repository: cudarc alone with
# the features the runtime enables (CudaContext::new(0)); the runtime with
# `default-features = false, features = ["cuda-13000"]` (Gpu::new(0)); the runtime with its
# defaults and one inline `cuda_module!` (one kernel, the default targets). Each has path
# dependencies on this checkout and a copy of its Cargo.lock, and is built with
# `cargo build --offline --timings` in a fresh target folder with an empty kernel cache, the
# three one after another, RUNS times. Prints per build the wall and CPU seconds (user + system
# of cargo and all it ran) and the load average before it, then each run's ratios; keeps each
# build's `--timings` report in OUT (default: a temporary folder) and prints its largest units.
# The build machine's other work moves the seconds: compare the ratios of one run.
set -euo pipefail
runs="${1:-2}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
out="${2:-$work/results}"
mkdir -p "$out"
trap 'rm -rf "$work/crates" "$work/cache"' EXIT

cudarc_line=$(grep -E '^cudarc = ' "$root/Cargo.toml" | sed 's/features = \[/features = ["cuda-13000", /')
write_crate() { # name, dependency line, main.rs
    mkdir -p "$work/crates/$1/src"
    printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n[workspace]\n\n[dependencies]\n%s\n' \
        "$1" "$2" > "$work/crates/$1/Cargo.toml"
    printf '%s\n' "$3" > "$work/crates/$1/src/main.rs"
    cp "$root/Cargo.lock" "$work/crates/$1/"
}
write_crate cudarc-alone "$cudarc_line" 'fn main() {
    match cudarc::driver::CudaContext::new(0) {
        Ok(ctx) => println!("device {}", ctx.ordinal()),
        Err(e) => println!("no device: {e}"),
    }
}'
write_crate runtime-alone "cuda-kernel-runtime = { path = \"$root/kernel-runtime\", default-features = false, features = [\"cuda-13000\"] }" 'fn main() {
    match cuda_kernel_runtime::Gpu::new(0) {
        Ok(_) => println!("device 0"),
        Err(e) => println!("no device: {e}"),
    }
}'
write_crate runtime-inline "cuda-kernel-runtime = { path = \"$root/kernel-runtime\" }" 'cuda_kernel_runtime::cuda_module! {
    mod kernels {
        source = r#"
            extern "C" __global__ void scale(float* x, float a, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] *= a;
            }
        "#;
    }
}

fn main() {
    match cuda_kernel_runtime::Gpu::new(0) {
        Ok(gpu) => println!("device 0: {}", kernels::load(&gpu).is_ok()),
        Err(e) => println!("no device: {e}"),
    }
}'

crates=(cudarc-alone runtime-alone runtime-inline)
for run in $(seq 1 "$runs"); do
    declare -A wall=()
    for c in "${crates[@]}"; do
        rm -rf "$work/crates/$c/target" "$work/cache"
        load=$(cut -d' ' -f1 /proc/loadavg)
        (cd "$work/crates/$c" && KERNEL_BUILD_CACHE_DIR="$work/cache" /usr/bin/time -f '%e %U %S' -o "$work/time" \
            cargo build --offline --timings > "$out/run$run-$c.log" 2>&1) \
            || { echo "dependency-cost: $c failed to build (see $out/run$run-$c.log)" >&2; exit 1; }
        cp "$work/crates/$c/target/cargo-timings/cargo-timing.html" "$out/run$run-$c.html"
        read -r w u s < "$work/time"
        wall[$c]=$w
        printf 'run %s %-15s %6.1f s wall %6.1f s CPU (load before %s)\n' "$run" "$c" "$w" "$(echo "$u + $s" | bc)" "$load"
    done
    printf 'run %s ratios: runtime alone %.2fx, runtime + inline module %.2fx\n' "$run" \
        "$(echo "${wall[runtime-alone]} / ${wall[cudarc-alone]}" | bc -l)" \
        "$(echo "${wall[runtime-inline]} / ${wall[cudarc-alone]}" | bc -l)"
done

# Each build's largest units, from the last run's --timings (sum of unit times and shares).
for c in "${crates[@]}"; do
    python3 - "$out/run$runs-$c.html" "$c" <<'PY'
import json, re, sys
units = json.loads(re.search(r'const UNIT_DATA = (\[.*?\]);\n', open(sys.argv[1]).read(), re.S).group(1))
total = sum(u['duration'] for u in units)
versions = {}
for u in units:
    versions.setdefault(u['name'], set()).add(u['version'])
by = {}
for u in units:
    # The version only where two of one crate are built (syn 2 and syn 3).
    name = u['name'] + (' ' + u['version'] if len(versions[u['name']]) > 1 else '')
    name += ' (' + u['target'].strip() + ')' if u['target'].strip() else ''
    by[name] = by.get(name, 0) + u['duration']
top = sorted(by.items(), key=lambda kv: -kv[1])[:8]
print(f"{sys.argv[2]}: {total:.1f} s of units; " + ", ".join(f"{n} {d:.1f} s ({100 * d / total:.0f}%)" for n, d in top))
PY
done
echo "reports: $out"

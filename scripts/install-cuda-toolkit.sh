#!/usr/bin/env bash
# Installs NVIDIA's nvcc 13.0 pip wheels into a project-local directory, so that
# cuda-kernel-build finds nvcc with no configuration on a machine without a CUDA toolkit.
#
#   scripts/install-cuda-toolkit.sh            # into ./.cuda-toolkit (next to this repo's Cargo.toml)
#   scripts/install-cuda-toolkit.sh --with cutlass,curand   # and these libraries' wheels
#   scripts/install-cuda-toolkit.sh --with curand,cublas --linkable   # what candle links
#   KERNEL_CUDA_TOOLKIT_DIR=/opt/tk scripts/install-cuda-toolkit.sh
#
# Libraries (as `cuda-kernel-inspect toolkit install --with`): curand, cublas, cutlass. Those
# installed before are kept.
#
# --linkable lays the folder out for crates that link the CUDA libraries when the program is
# linked (candle, cudarc's `dynamic-linking`), as a system toolkit is: the unversioned names
# the linker looks for (lib/libcudart.so -> libcudart.so.13, ...) and lib/stubs/libcuda.so, a
# driver stub for linking only. The stub is only ever named libcuda.so: a program records the
# driver's name, libcuda.so.1, which only the driver provides, so the stub is never loaded when
# a program runs (were it loaded, every call would return CUDA_ERROR_STUB_LIBRARY, as NVIDIA's
# stub does). It is compiled from the names in the wheels' cuda.h with the C compiler (cc, or
# CC). It then writes link-env.sh into the folder: `source` it to set CUDA_HOME and PATH for
# such a build (and LD_LIBRARY_PATH, for running what it builds). `cuda-kernel-inspect toolkit
# install --linkable` does the same (kernel-inspect/src/linkable.rs).
#
# Idempotent: when the requested versions are already installed it only checks that
# nvcc runs and exits (well under a second). Needs python3 with pip and network access
# to PyPI (or a configured mirror) the first time.
set -euo pipefail

version="${KERNEL_CUDA_WHEEL_VERSION:-13.0.*}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${KERNEL_CUDA_TOOLKIT_DIR:-$root/.cuda-toolkit}"
packages=(nvidia-cuda-nvcc nvidia-cuda-crt nvidia-cuda-runtime nvidia-cuda-cccl nvidia-nvvm nvidia-nvjitlink nvidia-nvfatbin nvidia-cuda-nvrtc)
declare -A library_wheels=([curand]="nvidia-curand==10.4.0.*" [cublas]="nvidia-cublas==13.0.*" [cutlass]="nvidia-cutlass==4.2.*")
library_order=(curand cublas cutlass)
stamp="$dest/.installed"
base="${packages[*]} ==$version"

requested=()
linkable=0
while [ $# -gt 0 ]; do
    case "$1" in
        --with) IFS=',' read -r -a more <<< "${2:-}"; requested+=("${more[@]}"); shift 2 ;;
        --linkable) linkable=1; shift ;;
        *) echo "usage: $0 [--with curand,cublas,cutlass] [--linkable]" >&2; exit 2 ;;
    esac
done
had=()
had_linkable=0
if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$base" ]; then
    while read -r word name; do
        [ "$word" = with ] && had+=("$name")
        [ "$word" = linkable ] && had_linkable=1
    done < <(tail -n +2 "$stamp")
fi
[ "$had_linkable" = 1 ] && linkable=1
libraries=()
missing=0
for r in "${requested[@]}"; do
    [ -n "${library_wheels[$r]:-}" ] || { echo "install-cuda-toolkit: unknown library '$r' (known: ${library_order[*]})" >&2; exit 2; }
    [[ " ${had[*]} " == *" $r "* ]] || missing=1
done
for l in "${library_order[@]}"; do
    if [[ " ${had[*]} ${requested[*]} " == *" $l "* ]]; then libraries+=("$l"); fi
done
want="$base"
for l in "${libraries[@]}"; do want+=$'\n'"with $l"; done

nvcc_in() {
    for d in "$1"/nvidia/cu13/bin "$1"/nvidia/cu12/bin; do
        [ -x "$d/nvcc" ] && { echo "$d/nvcc"; return 0; }
    done
    return 1
}

# The link names and the driver stub in the wheels' folder $1 (bin/, include/, lib/).
make_linkable() {
    local home="$1" lib="$1/lib" f name made=()
    [ -f "$home/include/cuda.h" ] || { echo "install-cuda-toolkit: no cuda.h in $home/include" >&2; return 1; }
    for f in "$lib"/lib*.so.[0-9]*; do
        name="$(basename "$f")"
        # One version number only (libcublas.so.13, not libnvrtc-builtins.so.13.0).
        [[ "$name" =~ ^(lib[A-Za-z0-9_.-]+)\.so\.[0-9]+$ ]] || continue
        ln -sfn "$name" "$lib/${BASH_REMATCH[1]}.so"
        made+=("${BASH_REMATCH[1]}.so")
    done
    mkdir -p "$lib/stubs"
    local src="$lib/stubs/.libcuda-stub.c"
    {
        echo "/* Driver stub for linking only (install-cuda-toolkit.sh --linkable): every entry"
        echo "   point of cuda.h, each returning CUDA_ERROR_STUB_LIBRARY (34). */"
        grep -ohE '\bcu[A-Z][A-Za-z0-9_]*' "$home/include/cuda.h" | sort -u | sed 's/.*/int &(void) { return 34; }/'
    } > "$src"
    "${CC:-cc}" -shared -fPIC -O1 -Wl,-soname,libcuda.so.1 -o "$lib/stubs/libcuda.so.tmp" "$src" \
        || { echo "install-cuda-toolkit: compiling the driver stub failed (needs a C compiler: cc, or CC)" >&2; return 1; }
    mv "$lib/stubs/libcuda.so.tmp" "$lib/stubs/libcuda.so"
    rm -f "$src"
    echo "cuda toolkit: link names ${made[*]} and the driver stub lib/stubs/libcuda.so"
}

# link-env.sh: what a crate that links the CUDA libraries needs, to build and to run.
write_link_env() {
    local home="$1"
    cat > "$dest/link-env.sh" <<ENV
# Written by install-cuda-toolkit.sh --linkable. Source it: . $dest/link-env.sh
# CUDA_HOME: where cudarc's and candle's build scripts look for lib/ and lib/stubs/;
# PATH: the nvcc whose version cudarc reads; LD_LIBRARY_PATH: the libraries, when the program runs.
export CUDA_HOME="$home"
export PATH="$home/bin\${PATH:+:\$PATH}"
export LD_LIBRARY_PATH="$home/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
ENV
    echo "cuda toolkit: for crates that link the CUDA libraries: . $dest/link-env.sh"
}

if [ "$linkable" = 1 ]; then want+=$'\n'"linkable"; fi

if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$base" ] && [ "$missing" = 0 ] && nvcc=$(nvcc_in "$dest") && "$nvcc" --version >/dev/null 2>&1; then
    echo "cuda toolkit: already installed: $nvcc"
    if [ "$linkable" = 1 ] && [ "$had_linkable" = 0 ]; then
        make_linkable "$(dirname "$(dirname "$nvcc")")"
        printf '%s\n' "$want" > "$stamp"
    fi
    if [ "$linkable" = 1 ]; then write_link_env "$(dirname "$(dirname "$nvcc")")"; fi
    exit 0
fi

command -v python3 >/dev/null || { echo "install-cuda-toolkit: python3 is needed to install the nvcc wheels" >&2; exit 1; }
python3 -m pip --version >/dev/null 2>&1 || { echo "install-cuda-toolkit: python3 has no pip (try: python3 -m ensurepip)" >&2; exit 1; }

# Install beside the destination, then move into place, so an interrupted run never
# leaves a half-installed toolkit where discovery would find it.
mkdir -p "$(dirname "$dest")"
tmp="$(mktemp -d "$(dirname "$dest")/.cuda-toolkit.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
specs=()
for p in "${packages[@]}"; do specs+=("$p==$version"); done
deps=()
for l in "${libraries[@]}"; do specs+=("${library_wheels[$l]}"); deps=(--no-deps); done
echo "cuda toolkit: installing ${specs[*]} into $dest"
python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    "${deps[@]}" --target "$tmp" "${specs[@]}"
nvcc=$(nvcc_in "$tmp") || { echo "install-cuda-toolkit: the wheels did not provide nvcc" >&2; exit 1; }
"$nvcc" --version >/dev/null
if [ "$linkable" = 1 ]; then make_linkable "$(dirname "$(dirname "$nvcc")")"; fi
printf '%s\n' "$want" > "$tmp/.installed"
rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
echo "cuda toolkit: installed: $(nvcc_in "$dest")"
"$(nvcc_in "$dest")" --version | tail -n 2
if [ "$linkable" = 1 ]; then write_link_env "$(dirname "$(dirname "$(nvcc_in "$dest")")")"; fi

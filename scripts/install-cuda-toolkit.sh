#!/usr/bin/env bash
# Installs NVIDIA's nvcc 13.0 pip wheels into a project-local directory, so that
# cuda-kernel-build finds nvcc with no configuration on a machine without a CUDA toolkit.
#
#   scripts/install-cuda-toolkit.sh            # into ./.cuda-toolkit (next to this repo's Cargo.toml)
#   scripts/install-cuda-toolkit.sh --with cutlass,curand   # and these libraries' wheels
#   KERNEL_CUDA_TOOLKIT_DIR=/opt/tk scripts/install-cuda-toolkit.sh
#
# Libraries (as `cuda-kernel-inspect toolkit install --with`): curand, cublas, cutlass. Those
# installed before are kept.
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
while [ $# -gt 0 ]; do
    case "$1" in
        --with) IFS=',' read -r -a more <<< "${2:-}"; requested+=("${more[@]}"); shift 2 ;;
        *) echo "usage: $0 [--with curand,cublas,cutlass]" >&2; exit 2 ;;
    esac
done
had=()
if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$base" ]; then
    while read -r word name; do [ "$word" = with ] && had+=("$name"); done < <(tail -n +2 "$stamp")
fi
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

if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$base" ] && [ "$missing" = 0 ] && nvcc=$(nvcc_in "$dest") && "$nvcc" --version >/dev/null 2>&1; then
    echo "cuda toolkit: already installed: $nvcc"
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
printf '%s\n' "$want" > "$tmp/.installed"
rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
echo "cuda toolkit: installed: $(nvcc_in "$dest")"
"$(nvcc_in "$dest")" --version | tail -n 2

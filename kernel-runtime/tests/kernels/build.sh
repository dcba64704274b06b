#!/bin/bash
# Rebuilds the committed test fatbins from the .cu files here. Needs nvcc 13 (NVCC, PATH, or the
# project's pip-installed toolkit). The runtime itself never needs nvcc: tests include the
# committed .fatbin files.
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-$(command -v nvcc || echo ../../../.cuda-toolkit/nvidia/cu13/bin/nvcc)}
archs=(75 80 90 100 120)
gencode=()
for a in "${archs[@]}"; do gencode+=(-gencode "arch=compute_$a,code=sm_$a"); done
gencode+=(-gencode "arch=compute_120,code=compute_120")
"$NVCC" -fatbin -O3 "${gencode[@]}" runtime_test.cu -o runtime_test.fatbin
"$NVCC" -fatbin -O3 -gencode arch=compute_75,code=sm_75 old_arch.cu -o old_arch.fatbin
# Reliability tests: SASS per arch plus compute_75 PTX (JIT-able on every listed GPU), and sm_80 only.
"$NVCC" -fatbin -O3 "${gencode[@]:0:10}" -gencode arch=compute_75,code=compute_75 reliability.cu -o reliability.fatbin
"$NVCC" -fatbin -O3 -gencode arch=compute_80,code=sm_80 reliability.cu -o sm80_only.fatbin
ls -l ./*.fatbin

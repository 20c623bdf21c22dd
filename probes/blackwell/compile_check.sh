#!/usr/bin/env bash
# Compiles the Blackwell probe kernels and their runners for the targets they need (sm_100a for
# tcgen05, sm_120a for the kind:: mma.sync forms) without running anything: no Blackwell GPU is
# needed, only nvcc (CUDA 12.9 or later; checked with CUDA 13). Without nvcc it says so and exits 0.
#   probes/blackwell/compile_check.sh [NVCC]
set -euo pipefail
cd "$(dirname "$0")"
nvcc=${1:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$nvcc" ]; then
  echo "probes/blackwell: no nvcc found, compile check skipped"
  exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags=(-std=c++20 -I../../include -Xcompiler -Wall,-Wextra,-Werror)
sm100=(-gencode=arch=compute_100a,code=sm_100a)
sm120=(-gencode=arch=compute_120a,code=sm_120a)
"$nvcc" "${flags[@]}" "${sm120[@]}" -c mma_sm120_kernels.cu -o "$out/sm120_kernels.o"
"$nvcc" "${flags[@]}" "${sm120[@]}" -c sm120_runner.cpp -o "$out/sm120_runner.o"
"$nvcc" "${flags[@]}" "${sm100[@]}" -c tcgen05_block_scale.cu -o "$out/tcgen05_kernels.o"
"$nvcc" "${flags[@]}" "${sm100[@]}" -c tcgen05_runner.cpp -o "$out/tcgen05_runner.o"
"$nvcc" "${flags[@]}" "${sm120[@]}" -DTCNUM_BLACKWELL_TARGET=120 -c record_blackwell.cpp -o "$out/record120.o"
"$nvcc" "${flags[@]}" "${sm100[@]}" -DTCNUM_BLACKWELL_TARGET=100 -c record_blackwell.cpp -o "$out/record100.o"
# The PTX of every catalog form is in the objects (a kernel table entry that ptxas dropped would not be).
"$nvcc" "${flags[@]}" "${sm120[@]}" -ptx mma_sm120_kernels.cu -o "$out/sm120.ptx"
"$nvcc" "${flags[@]}" "${sm100[@]}" -ptx tcgen05_block_scale.cu -o "$out/tcgen05.ptx"
count_sm120=$(grep -o 'mma.sync.aligned[^ ]*' "$out/sm120.ptx" | sort -u | wc -l)
count_tcgen05=$(grep -o 'tcgen05.mma[^ ]*' "$out/tcgen05.ptx" | sort -u | wc -l)
if [ "$count_sm120" -lt 78 ] || [ "$count_tcgen05" -lt 4 ]; then
  echo "probes/blackwell: expected 78 mma.sync and 4 tcgen05.mma forms, found $count_sm120 and $count_tcgen05" >&2
  exit 1
fi
echo "probes/blackwell: sm_120a ($count_sm120 mma.sync forms) and sm_100a ($count_tcgen05 tcgen05.mma forms) compile with $("$nvcc" --version | tail -1)"

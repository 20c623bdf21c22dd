#!/bin/sh
# Prints the MMA-related SASS of lowering_kernels.cu for sm_75 ... sm_100 (nvcc + cuobjdump of
# CUDA 13), and for sm_70 the HMMA.884 count per kernel (CUDA 13 cannot target sm_70: the PTX
# made for sm_75 is retargeted and assembled by a CUDA 12 ptxas, PTXAS12; no CUDA 13 tool
# disassembles sm_70, so count_volta_hmma.py counts HMMA.884 opcodes in the cubin).
# Usage: check_lowering.sh OUTDIR   (needs nvcc, cuobjdump; PTXAS12 for sm_70)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: check_lowering.sh OUTDIR}
mkdir -p "$out"
for sm in 75 80 86 89 90 100; do
  nvcc -cubin -O3 -arch=sm_$sm -o "$out/sm_$sm.cubin" "$here/lowering_kernels.cu"
  echo "=== sm_$sm"
  cuobjdump -sass "$out/sm_$sm.cubin" | grep -E 'Function|MMA|F2FP|HADD2|FADD|FFMA|FMUL' |
    sed 's@/\*[0-9a-fx]*\*/@@g; s/^ *//'
done
if [ -n "${PTXAS12:-}" ]; then
  nvcc -ptx -arch=compute_75 -o "$out/sm_75.ptx" "$here/lowering_kernels.cu"
  sed -e 's/^\.target sm_75/.target sm_70/' -e 's/^\.version 9\.[0-9]/.version 8.0/' "$out/sm_75.ptx" >"$out/sm_70.ptx"
  "$PTXAS12" -arch=sm_70 -o "$out/sm_70.cubin" "$out/sm_70.ptx"
  echo "=== sm_70 (HMMA.884 opcodes; sm_75 for comparison)"
  python3 "$here/count_volta_hmma.py" "$out/sm_70.cubin" "$out/sm_75.cubin"
fi

#!/usr/bin/env bash
# Records the sm_90 corpora on a Hopper GPU and runs the live check.
# Usage: tools/record_h100.sh NUMPROBE OUTDIR [SEED]
# Core instructions (the list): 20,004 cases each (3,334 per distribution for mma;
# 1,112 per distribution and N for wgmma at N = 8, 64, 256); extra fp8 mma forms: 3,000 each.
set -euo pipefail
np=$1 out=$2 seed=${3:-1}
mkdir -p "$out/mma" "$out/wgmma"
"$np" list --arch sm_90 > "$out/instructions.txt"
core_mma='^mma\.m16n8k(8|16)\.(f32|f16)\.(f16|bf16)\.|^mma\.m16n8k(4|8)\..*tf32|^mma\.m16n8k32\.f32\.'
for i in $(grep '^mma.m16' "$out/instructions.txt"); do
  if [[ $i =~ $core_mma ]]; then n=3334; else n=500; fi
  "$np" record --instr "$i" --dist all --cases $n --seed "$seed" --out "$out/mma/$i.tcc.gz" 2>/dev/null
done
for i in $(grep -E '^wgmma\.m64n(8|64|256)k' "$out/instructions.txt"); do
  "$np" record --instr "$i" --dist all --cases 1112 --seed "$seed" --out "$out/wgmma/$i.tcc.gz" 2>/dev/null
done
du -sh "$out/mma" "$out/wgmma"

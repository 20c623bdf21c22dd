#!/bin/bash
# issue26 integer mma.sp device run: build tcnum_sparse_record (no MPFR), record + live check of the
# 16 mma.sp::ordered_metadata .s32.{s8,u8}.{s8,u8} forms (m16n8k32, m16n8k64, wrap and .satfinite)
# at two seeds, SASS. Run from the repository root after the overlay is unpacked; logs go to $OUT.
set -u
cd "$(dirname "$0")/../../.." || exit 1
{ git log --oneline -1; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv; nproc; } > "$OUT/env.txt" 2>&1
start=$(date +%s)
{ cmake -S . -B build26m -DCMAKE_BUILD_TYPE=Release -DTCNUM_CUDA=ON -DTCNUM_PROBE_ARCHS=90a-real -DTCNUM_WITH_MPFR=OFF \
  && cmake --build build26m -j16 --target tcnum_sparse_record; echo "build rc=$? after $(( $(date +%s) - start )) s"; } > "$OUT/build.log" 2>&1
tail -3 "$OUT/build.log"
mkdir -p recspm
timeout 200 build26m/probes/tcnum_sparse_record --out recspm --instr integer --family mma --cases 3000 --keep 4 --seed 26 \
  > recspm/record.log 2>&1
echo "record rc=$? after $(( $(date +%s) - start )) s" >> recspm/record.log
tail -4 recspm/record.log
mkdir -p recspm2
timeout 120 build26m/probes/tcnum_sparse_record --out recspm2 --instr integer --family mma --cases 3000 --keep 0 --seed 2611 \
  > recspm/record-seed2611.log 2>&1
echo "record rc=$? after $(( $(date +%s) - start )) s" >> recspm/record-seed2611.log
tail -2 recspm/record-seed2611.log
cp recspm2/sparse-mismatches.tcc.gz recspm/sparse-mismatches-seed2611.tcc.gz 2>/dev/null
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
o=$(find build26m -name 'sparse_mma_kernels.cu.o' | head -1)
"$CUOBJ" -sass "$o" | grep -E "Function : .*S168(32|64)_[WS]_|IMMA" | head -80 > recspm/sass.txt 2>&1
cp "$OUT/build.log" "$OUT/env.txt" recspm/ 2>/dev/null
tar czf "$OUT/spmma26.tgz" recspm
echo "all done after $(( $(date +%s) - start )) s"

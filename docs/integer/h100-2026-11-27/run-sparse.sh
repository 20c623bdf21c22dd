#!/bin/bash
# issue26 sparse integer wgmma device run: build tcnum_sparse_record (no MPFR), record + live check
# of every wgmma.mma_async.sp .s32.{s8,u8}.{s8,u8} form at N = 8, 64, 256, SASS.
cd "$(dirname "$0")/../../.." || exit 1
[ -f .dev/wt26/overlay.tar ] && { tar xf .dev/wt26/overlay.tar || exit 1; }
start=$(date +%s)
{ cmake -S . -B build26s -DCMAKE_BUILD_TYPE=Release -DTCNUM_CUDA=ON -DTCNUM_PROBE_ARCHS=90a-real -DTCNUM_WITH_MPFR=OFF \
  && cmake --build build26s -j16 --target tcnum_sparse_record; echo "build rc=$? after $(( $(date +%s) - start )) s"; } > "$OUT/build.log" 2>&1
tail -3 "$OUT/build.log"
mkdir -p recsp
timeout 240 build26s/probes/tcnum_sparse_record --out recsp --instr integer --cases 3000 --keep-wgmma 6 --seed 26 > recsp/record.log 2>&1
echo "record rc=$? after $(( $(date +%s) - start )) s" >> recsp/record.log
tail -4 recsp/record.log
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
o=$(find build26s -name 'sparse_wgmma_kernels.cu.o' | head -1)
"$CUOBJ" -sass "$o" | grep -E "IGMMA" | head -30 > recsp/sass.txt 2>&1
tar czf "$OUT/sparse26.tgz" recsp
echo "all done after $(( $(date +%s) - start )) s"

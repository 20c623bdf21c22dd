#!/bin/bash
# issue26 integer wgmma device run: build tcnum_int_record and numprobe (no MPFR), record + live
# check every integer wgmma form, a whole-tile fuzz campaign over every integer form, SASS.
cd "$(dirname "$0")/../../.." || exit 1
[ -f .dev/wt26/overlay.tar ] && { tar xf .dev/wt26/overlay.tar || exit 1; }
{ git log --oneline -1; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv; nproc; } > "$OUT/env.txt" 2>&1
start=$(date +%s)
{ cmake -S . -B build26i -DCMAKE_BUILD_TYPE=Release -DTCNUM_CUDA=ON -DTCNUM_PROBE_ARCHS=90a-real -DTCNUM_WITH_MPFR=OFF \
  && cmake --build build26i -j16 --target tcnum_int_record numprobe; echo "build rc=$? after $(( $(date +%s) - start )) s"; } > "$OUT/build.log" 2>&1
tail -3 "$OUT/build.log"
mkdir -p rec26
timeout 180 build26i/probes/tcnum_int_record --out rec26 --instr wgmma --cases 3000 --keep 6 --seed 26 --corpus-n 8,64,256 > rec26/record.log 2>&1
echo "record rc=$? after $(( $(date +%s) - start )) s" >> rec26/record.log
tail -4 rec26/record.log
timeout 120 build26i/tools/numprobe fuzz --backend device --instr integer --dist all --cases 65536 --seed 2627 \
  --both-a-sources --time 90s --quiet --out fuzz26 > fuzz26.log 2>&1
echo "fuzz rc=$? after $(( $(date +%s) - start )) s" >> fuzz26.log
tail -4 fuzz26.log
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
o=$(find build26i -name 'wgmma_kernels.cu.o' | head -1)
"$CUOBJ" -sass "$o" | grep -E "Function : .*ILi1[2-9]ELi(8|64)ELb1|IGMMA" | head -60 > sass.txt 2>&1
tar czf "$OUT/int26.tgz" rec26 fuzz26 fuzz26.log sass.txt
echo "all done after $(( $(date +%s) - start )) s"

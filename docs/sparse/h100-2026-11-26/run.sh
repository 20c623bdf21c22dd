#!/bin/bash
# issue26-sparse device run: build tcnum_sparse_record, record + live check, designed inputs, SASS.
cd "$(dirname "$0")/../.." || exit 1
tar xf .dev/26b/overlay.tar || exit 1
{ grep -c find_sparse_wgmma_kernel probes/sparse_mma_probe.hpp; grep -c device_0 probes/sparse_record.cpp; git log --oneline -1; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv; nproc; } > "$OUT/env.txt" 2>&1
start=$(date +%s)
{ cmake -S . -B build26b -DCMAKE_BUILD_TYPE=Release -DTCNUM_CUDA=ON -DTCNUM_PROBE_ARCHS=90a-real \
  && cmake --build build26b -j16 --target tcnum_sparse_record; echo "build rc=$? after $(( $(date +%s) - start )) s"; } > "$OUT/build.log" 2>&1
tail -3 "$OUT/build.log"
mkdir -p "$OUT/rec"
timeout 330 build26b/probes/tcnum_sparse_record --out "$OUT/rec" --cases 3000 --keep 100 --keep-wgmma 40 --seed 26 --designed > "$OUT/record.log" 2>&1
echo "record rc=$? after $(( $(date +%s) - start )) s" >> "$OUT/record.log"
tail -5 "$OUT/record.log"
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
for o in $(find build26b -name 'sparse_mma_kernels.cu.o' -o -name 'sparse_wgmma_kernels.cu.o'); do
  echo "== $o"; "$CUOBJ" -sass "$o" | grep -E "Function|MMA|GMMA|F2FP|FADD|HADD|SP" | grep -v "^\s*$"
done > "$OUT/sass.txt" 2>&1
echo "all done after $(( $(date +%s) - start )) s"

#!/bin/bash
# Device run: numprobe (with carried MPFR) built for sm_90a; the feature tests on the sparse forms
# of every dtype against the H100, with the built-in model's predictions beside them.
set -uo pipefail
t0=$SECONDS
mkdir -p /tmp/m && tar xzf .dev/mpfr.tgz -C /tmp/m
export LD_LIBRARY_PATH=/tmp/m/lib
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DTCNUM_CUDA=ON -DTCNUM_PROBE_ARCHS=90a-real \
  -DCMAKE_PREFIX_PATH=/tmp/m -DTCNUM_BUILD_BENCHMARKS=OFF -DTCNUM_PYTHON=OFF > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
grep -i "mpfr\|tcnum:" $OUT/configure.log | head
cmake --build /tmp/b -j16 --target numprobe > $OUT/build.log 2>&1 || { tail -40 $OUT/build.log; exit 1; }
echo "build done at $((SECONDS - t0)) s"
N=/tmp/b/tools/numprobe
$N --version | head -5
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for dt in fp16 bf16 tf32 e4m3 e5m2; do
  timeout 150 $N features --backend device --dtype $dt --op all --instr sparse > $OUT/features-sparse-$dt.txt 2>&1
  echo "$dt: exit $? at $((SECONDS - t0)) s; reports $(grep -c '^== ' $OUT/features-sparse-$dt.txt); rows differing from the model $(grep -c 'DIFFERS' $OUT/features-sparse-$dt.txt); anomalies $(grep -ci 'anomal' $OUT/features-sparse-$dt.txt)"
done
timeout 60 $N features --backend device --dtype bf16 --op blocksize --instr sparse
timeout 60 $N features --backend device --op all --instr mma.m16n8k32.s32.s8.s8.s32 | head -12

#!/bin/bash
# Issue 22 (threads): base (this tree) and the pool (overlay.tar) built here, timed on 2 and 16 cores.
set -u
D=/tmp/deps; L=$D/usr/lib/x86_64-linux-gnu; mkdir -p $D && tar xJf .dev/wt22/deps-slim.tar.xz -C $D
# MPFR and GMP: the system's (GCC's own cc1 needs them), headers carried.
for n in mpfr gmp; do
  f=$(ldconfig -p | grep -o "/[^ ]*/lib$n\.so\.[0-9]*$" | head -1); [ -n "$f" ] || f=$(find / -name "lib$n.so.*" 2>/dev/null | head -1)
  echo "lib$n: $f"; [ -n "$f" ] || { echo "no lib$n"; exit 1; }; ln -sf "$f" $L/lib$n.so
done
export LD_LIBRARY_PATH=$L
{ lscpu; nproc; for c in 0 1 2; do cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list; done; } > $OUT/lscpu.txt 2>&1
t0=$(date +%s); el() { echo "$1 $(( $(date +%s) - t0 )) s"; }
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D/usr -DTCNUM_BUILD_TESTS=OFF -DTCNUM_CUDA=OFF -DTCNUM_BUILD_TOOLS=OFF -DTCNUM_BUILD_BENCHMARKS=ON -DTCNUM_WITH_MPFR=ON > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
cmake --build /tmp/b --target tcnum_bench -j16 >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
cp /tmp/b/bench/tcnum_bench /tmp/base; el "base build"
tar xmf .dev/wt22/overlay.tar && cmake --build /tmp/b --target tcnum_bench -j16 >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
cp /tmp/b/bench/tcnum_bench /tmp/new; el "new build"; cmp -s /tmp/base /tmp/new && { echo "overlay not built"; exit 1; }
F='--benchmark_repetitions=3 --benchmark_min_time=0.2 --benchmark_out_format=json'
G='Gemm/.*/size:512/threads:(0|1)/reference:0'
for v in new base; do
  TCNUM_THREADS=2 timeout 100 taskset -c 0,1 /tmp/$v --benchmark_filter="$G" $F --benchmark_out=$OUT/c2-$v.json > /dev/null 2>&1; el "2 cores $v"
done
for v in new base; do
  TCNUM_THREADS=16 timeout 70 /tmp/$v --benchmark_filter="$G" $F --benchmark_out=$OUT/c16-$v.json > /dev/null 2>&1; el "16 cores $v"
done
for v in new base; do
  timeout 45 /tmp/$v --benchmark_filter='Gemm/.*_sm(90|80)/size:256/threads:(0|1)/reference:0' $F --benchmark_out=$OUT/c16-256-$v.json > /dev/null 2>&1; el "256 $v"
done

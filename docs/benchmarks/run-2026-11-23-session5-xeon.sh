#!/bin/bash
# Issue 9, session 5: the single-element change (baf5a4f) against the code before it (f8458b3),
# on the H100 host's Xeon, alternating binaries, every baseline (Eigen, MPFR) in the same runs.
set -u
D=/tmp/s5bin; mkdir -p $D && tar xJf $(dirname "$0")/bins.tar.xz -C $D; export LD_LIBRARY_PATH=$D
lscpu | grep -E "Model name|^CPU\(s\)|MHz" > $OUT/cpu.txt
for r in 1 2; do for b in new base; do
  $D/bench_$b --benchmark_filter='EigenFloatGemm/512|Gemm/.*/size:512/threads:1/reference:0|MmaElement' \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_out=$OUT/bench-$b-$r.json \
    --benchmark_out_format=json > $OUT/bench-$b-$r.txt 2>&1
  echo "round $r $b rc=$?"
done; done
grep -h median $OUT/bench-*-1.txt | head -50

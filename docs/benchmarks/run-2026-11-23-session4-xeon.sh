#!/bin/bash
# The issue-9 goals on the H100 host's Xeon, every baseline in the same run: tcnum_bench (512³ GEMM,
# one thread, each class vs Eigen float -O3 -march=native; single elements vs MPFR; batches) and
# replay (numprobe replay --threads 1 over every corpus) vs libdeflate alone and gzip -cd.
set -u
D=/tmp/leadbin; mkdir -p $D && tar xJf $(dirname "$0")/bins.tar.xz -C $D; export LD_LIBRARY_PATH=$D
lscpu | grep -E "Model name|^CPU\(s\)|Thread|MHz|Flags" | sed 's/Flags:.*\(avx512f\).*/Flags: ... avx512f .../' > $OUT/cpu.txt
mapfile -t files < <(find corpora -name '*.gz' | sort)
t() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.3f", $1 + $2}'; }
for r in 1 2 3 4 5; do
  echo "round $r numprobe $(t $D/numprobe replay --threads 1 "${files[@]}") libdeflate $(t $D/inflate_corpora "${files[@]}") gzip $(t gzip -cd "${files[@]}")" >> $OUT/replay.txt
done
$D/numprobe replay --threads 1 "${files[@]}" | tail -1 >> $OUT/replay.txt
$D/tcnum_bench --benchmark_filter='EigenFloatGemm/512|Gemm/.*/size:512/threads:1/reference:0|MmaElement|MmaBatch' \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_out=$OUT/bench.json --benchmark_out_format=json > $OUT/bench.txt 2>&1
echo "bench rc=$?"
cat $OUT/replay.txt

#!/bin/sh
# Builds the libFuzzer targets with clang (ASan + UBSan) in build-fuzz/ and runs each for
# SECONDS (default 60) on its seed corpus and dictionary. Findings land in build-fuzz/findings/;
# keep every input that ever crashed as a regression test (tests/fuzz/seeds/<target>/).
#   tests/fuzz/run.sh [SECONDS] [JOBS]
set -eu
seconds=${1:-60}
jobs=${2:-1}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$src/build-fuzz
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DTCNUM_LIBFUZZER=ON -DTCNUM_SANITIZE=ON -DTCNUM_WITH_MPFR=OFF \
  -DTCNUM_BUILD_TOOLS=OFF -DTCNUM_BUILD_BENCHMARKS=OFF -DTCNUM_CUDA=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target fuzz_corpus_reader fuzz_model_loader
for t in corpus_reader model_loader; do
  work=$build/corpus/$t
  mkdir -p "$work" "$build/findings/$t"
  "$build/tests/fuzz/fuzz_$t" "$work" "$src/tests/fuzz/seeds/$t" -dict="$src/tests/fuzz/$t.dict" \
    -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/findings/$t/" 2>&1 | grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec|==|SUMMARY|INFO: seed)" || true
  if ls "$build/findings/$t"/* >/dev/null 2>&1; then echo "fuzz_$t: FINDINGS in $build/findings/$t"; exit 1; fi
done

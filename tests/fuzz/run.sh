#!/bin/sh
# Builds the libFuzzer targets with clang (ASan + UBSan) in build-fuzz/, replays each target's
# regression inputs (tests/fuzz/seeds/<target>: seeds and every input that ever crashed), then
# fuzzes each for SECONDS (default 60) with its dictionary. Findings land in
# build-fuzz/findings/<target>/ and fail the script: keep each one as a regression input
# (copy it into tests/fuzz/seeds/<target>/) when fixing it. CI runs `run.sh 20`.
#   tests/fuzz/run.sh [SECONDS] [JOBS] [TARGET...]
set -eu
seconds=${1:-60}
jobs=${2:-1}
[ $# -ge 2 ] && shift 2 || shift $#
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$src/build-fuzz
if ! command -v clang++ >/dev/null; then
  echo "tests/fuzz/run.sh: clang++ not found (libFuzzer needs clang; README's setup command installs it)" >&2
  exit 1
fi
targets=${*:-corpus_reader model_loader instruction_names schedule checkpoint_loader mma_element}
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DTCNUM_LIBFUZZER=ON -DTCNUM_SANITIZE=ON -DTCNUM_BUILD_TESTS=ON \
  -DTCNUM_BUILD_TOOLS=OFF -DTCNUM_BUILD_BENCHMARKS=OFF -DTCNUM_CUDA=OFF >/dev/null
for t in $targets; do cmake --build "$build" -j"$jobs" --target "fuzz_$t"; done
status=0
for t in $targets; do
  work=$build/corpus/$t
  findings=$build/findings/$t
  mkdir -p "$work" "$findings"
  max_len=4096
  [ "$t" = corpus_reader ] && max_len=65536
  [ "$t" = checkpoint_loader ] && max_len=16384
  # The regression inputs once each (-runs=0 runs every input of the folders and stops), then fuzzing.
  for run in "-runs=0" "-max_total_time=$seconds"; do
    "$build/tests/fuzz/fuzz_$t" "$work" "$src/tests/fuzz/seeds/$t" -dict="$src/tests/fuzz/$t.dict" "$run" \
      -max_len=$max_len -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$findings/" \
      > "$build/fuzz_$t.log" 2>&1 || true
    echo "fuzz_$t $run: $(grep -E '^stat::number_of_executed_units' "$build/fuzz_$t.log" | awk '{print $2}') executions"
    if ls "$findings"/* >/dev/null 2>&1; then
      echo "fuzz_$t: FINDINGS in $findings" >&2
      grep -E "^(==|SUMMARY|#0|#1|#2|#3)" "$build/fuzz_$t.log" | head -20 >&2
      status=1
      break
    fi
  done
done
exit $status

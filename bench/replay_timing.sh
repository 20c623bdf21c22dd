#!/usr/bin/env bash
# Replay's speed per core against its baselines, in the same minute (docs/benchmarks.md,
# "Replay"): CPU time (perf's task-clock, all threads) of `numprobe replay --threads 1` over
# every corpus, of libdeflate alone (bench/inflate_corpora) and of `gzip -cd`, interleaved,
# ROUNDS times; prints each run and the medians.
#   bench/replay_timing.sh BUILD_DIR [ROUNDS=5] [NUMPROBE...]   (extra numprobe binaries: compared too)
set -euo pipefail
build=$1
rounds=${2:-5}
shift $(($# >= 2 ? 2 : 1))
cd "$(dirname "$0")/.."
mapfile -t files < <(find corpora -name '*.gz' | sort)
command -v perf >/dev/null || { echo "replay_timing: needs perf (linux-perf)" >&2; exit 2; }
declare -A runs
commands=("numprobe" "libdeflate" "gzip")
for extra in "$@"; do commands+=("$extra"); done
cpu_ms() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {printf "%.0f", $1}'; }
for _ in $(seq "$rounds"); do
  for c in "${commands[@]}"; do
    case $c in
      numprobe) t=$(cpu_ms "$build/tools/numprobe" replay --threads 1 "${files[@]}") ;;
      libdeflate) t=$(cpu_ms "$build/bench/inflate_corpora" "${files[@]}") ;;
      gzip) t=$(cpu_ms gzip -cd "${files[@]}") ;;
      *) t=$(cpu_ms "$c" replay --threads 1 "${files[@]}") ;;
    esac
    runs[$c]="${runs[$c]:-} $t"
  done
done
cases=$("$build/tools/numprobe" replay --threads 1 "${files[@]}" | tail -1)
echo "${#files[@]} files: $cases"
for c in "${commands[@]}"; do
  median=$(tr ' ' '\n' <<<"${runs[$c]}" | sed '/^$/d' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$c: median $median ms CPU, runs (ms):${runs[$c]}"
done

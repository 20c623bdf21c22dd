#!/bin/bash
# The final build on hardware: the boundary distribution as it now draws tiles (a case per row in
# 2 tiles of 5), over all 408 sm_90 instructions, then the whole mix on mma.sync for throughput.
# --json results on stdout. Everything goes under $OUT.
set -u
B=/tmp/tcnum-fuzz
mkdir -p "$B" && tar xzf "$(dirname "$0")/bundle.tar.gz" -C "$B"
N="$B/bundle/numprobe"
export TCNUM_SELF_CHECK_CACHE=$OUT/self-check-cache
log=$OUT/log.txt
stamp() { date -u +%H:%M:%S; }
run() { echo "== $(stamp) $*" >> "$log"; "$@" 2>>"$log.err" | tee -a "$log"; echo "== $(stamp) rc=${PIPESTATUS[0]}" >> "$log"; }
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nproc; } >> "$log" 2>&1
run "$N" fuzz --instr all --dist boundary --cases 98304 --batch 8192 --batches-per-round 64 --seed 5 --json --out "$OUT/boundary-all"
run "$N" fuzz --instr mma --time 20s --seed 13 --batches-per-round 32 --json --out "$OUT/tp-mma"
grep -v "^fuzz: [0-9]" "$log.err" | tail -5 >> "$log"
cd "$OUT" && tar czf results.tar.gz log.txt */summary.json */mismatches.tcc
tail -30 "$log"

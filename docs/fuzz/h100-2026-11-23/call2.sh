#!/bin/bash
# Second H100 call: the self-check cache of the first call carried over (same build), a campaign
# over all 408 instructions with one batch per instruction x distribution per round (every wgmma
# N covered early), and the timing breakdowns of mma and wgmma N=256 runs. One tarball back.
set -u
B=$(cd "$(dirname "$0")" && pwd)
N="$B/bundle/numprobe"
cp "$B/self-check-cache" "$OUT/self-check-cache"
export TCNUM_SELF_CHECK_CACHE=$OUT/self-check-cache
log=$OUT/log2.txt
stamp() { date -u +%H:%M:%S; }
run() { echo "== $(stamp) $*" >> "$log"; "$@" 2>&1 | awk 'NR % 5 == 1 || !/^fuzz: [0-9]/' >> "$log"; echo "== $(stamp) rc=${PIPESTATUS[0]}" >> "$log"; }
run "$N" fuzz --instr mma --time 20s --seed 11 --batches-per-round 64 --out "$OUT/tp-mma"
run "$N" fuzz --instr wgmma --wgmma-n 256 --time 10s --seed 12 --batches-per-round 16 --out "$OUT/tp-wgmma-n256"
run "$N" fuzz --instr all --time 150s --seed 2027 --batches-per-round 1 --out "$OUT/h100-all"
wc -l "$OUT/self-check-cache" >> "$log"
tar czf "$OUT/results.tgz" -C "$OUT" tp-mma tp-wgmma-n256 h100-all self-check-cache log2.txt
rm -rf "$OUT/tp-mma" "$OUT/tp-wgmma-n256" "$OUT/h100-all"
cat "$log" | grep -v "^fuzz: [0-9]" 

#!/bin/bash
# Throughput after overlapping generation with emulation and reusing device buffers: mma.sync
# (all 7 distributions, and the 4 whose lanes stay on the fast kernel), wgmma N=256, and the host
# side alone. Everything goes under $OUT.
set -u
B=/tmp/tcnum-fuzz
mkdir -p "$B" && tar xzf "$(dirname "$0")/bundle.tar.gz" -C "$B"
N="$B/bundle/numprobe"
export TCNUM_SELF_CHECK_CACHE=$OUT/self-check-cache
log=$OUT/log.txt
stamp() { date -u +%H:%M:%S; }
run() { echo "== $(stamp) $*" >> "$log"; "$@" 2>&1 | awk 'NR % 4 == 1 || !/^fuzz: [0-9]/' >> "$log"; echo "== $(stamp) rc=${PIPESTATUS[0]}" >> "$log"; }
cpu() { awk '/^cpu /{print $2+$3+$4+$6+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat; }
busy() { read b0 t0_ <<<"$1"; read b1 t1_ <<<"$2"; awk -v b="$((b1-b0))" -v t="$((t1_-t0_))" 'BEGIN{printf "cpu busy %.0f%%\n", 100*b/t}'; }
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nproc; } >> "$log" 2>&1
# the self-checks of the 24 mma.sync and 12 N=256 wgmma instructions first, so that the timed runs skip them
run "$N" fuzz --instr mma --cases 16384 --seed 1 --out "$OUT/warm-mma" --quiet
run "$N" fuzz --instr wgmma --wgmma-n 256 --cases 16384 --seed 1 --out "$OUT/warm-wgmma" --quiet
c0=$(cpu); run "$N" fuzz --instr mma --time 20s --seed 11 --batches-per-round 32 --out "$OUT/tp-mma"; busy "$c0" "$(cpu)" >> "$log"
c0=$(cpu); run "$N" fuzz --instr mma --dist normal,spread,cancel,boundary --time 10s --seed 11 --batches-per-round 32 --out "$OUT/tp-mma-fastmix"; busy "$c0" "$(cpu)" >> "$log"
c0=$(cpu); run "$N" fuzz --instr wgmma --wgmma-n 256 --time 10s --seed 12 --out "$OUT/tp-wgmma-n256"; busy "$c0" "$(cpu)" >> "$log"
c0=$(cpu); run "$N" fuzz --instr mma --time 8s --seed 11 --batches-per-round 32 --backend emu --device-model "$B/bundle/sm_90.json" --out "$OUT/tp-mma-emu"; busy "$c0" "$(cpu)" >> "$log"
cd "$OUT" && tar czf results.tar.gz log.txt tp-*/summary.json
tail -25 "$log"

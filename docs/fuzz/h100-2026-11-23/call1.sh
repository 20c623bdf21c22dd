#!/bin/bash
# The H100 run of issue 11: self-check cache, throughput, and a campaign over every sm_90
# instruction in two sessions joined with --resume. Writes everything under $OUT.
set -u
B=$(cd "$(dirname "$0")" && pwd)
N="$B/bundle/numprobe"
export TCNUM_SELF_CHECK_CACHE=$OUT/self-check-cache
log=$OUT/log.txt
stamp() { date -u +%H:%M:%S.%N | cut -c1-12; }
run() { echo "== $(stamp) $*" | tee -a "$log"; "$@" 2>&1 | tee -a "$log"; echo "== $(stamp) rc=${PIPESTATUS[0]}" | tee -a "$log"; }
{ nvidia-smi --query-gpu=name,driver_version,uuid,memory.total --format=csv,noheader; nproc; lscpu | grep -E "Model name|^CPU\(s\)"; ldd "$B/bundle/bin/numprobe"; } 2>&1 | tee -a "$log"
# 1. the self-check cache: the first process checks the 24 mma layouts, the second reads PASS
run "$N" fuzz --instr mma --cases 4096 --seed 1 --out "$OUT/cache-1" --quiet
test -f "$OUT/cache-1/summary.json" || { echo "first fuzz run failed: stopping" | tee -a "$log"; exit 2; }
run "$N" fuzz --instr mma --cases 4096 --seed 1 --out "$OUT/cache-2" --quiet
# 2. throughput, mma.sync: big device runs (64 batches of 4096 per instruction x distribution)
run "$N" fuzz --instr mma --time 30s --seed 11 --batches-per-round 64 --out "$OUT/tp-mma"
# 3. the host side alone: the same with the built-in model playing the device (two emulations)
run "$N" fuzz --instr mma --time 15s --seed 11 --batches-per-round 64 --backend emu --device-model "$B/bundle/sm_90.json" --out "$OUT/tp-mma-emu"
# 4. throughput, wgmma N=256 (64 cases per 64x256 tile)
run "$N" fuzz --instr wgmma --wgmma-n 256 --time 20s --seed 12 --batches-per-round 16 --out "$OUT/tp-wgmma-n256"
# 5. the campaign: all 408 sm_90 instructions (every legal wgmma N) x 7 distributions, two sessions
run "$N" fuzz --instr all --time 110s --seed 2026 --out "$OUT/h100-all"
run "$N" fuzz --instr all --time 110s --seed 2026 --out "$OUT/h100-all" --resume
ls -la "$OUT"/*

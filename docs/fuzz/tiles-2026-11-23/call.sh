#!/bin/bash
# One device call of issue 11's campaign: throughput runs (mma.sync, wgmma N=256, the host side
# alone) and a >= 10^9-case campaign over every sm_90 instruction in sessions joined by --resume.
# Usage: call.sh LABEL SEED SECONDS_LEFT FIRST_SESSION_SECONDS [emu]. Everything goes under $OUT.
set -u
label=$1 seed=$2 budget=$3 first=$4 emu=${5:-}
B=/tmp/tcnum-fuzz
mkdir -p "$B" && tar xzf "$(dirname "$0")/bundle.tar.gz" -C "$B"
N="$B/bundle/numprobe"
export TCNUM_SELF_CHECK_CACHE=$OUT/self-check-cache
log=$OUT/log.txt
t0=$(date +%s)
stamp() { date -u +%H:%M:%S; }
run() { echo "== $(stamp) $*" >> "$log"; "$@" 2>&1 | awk 'NR % 4 == 1 || !/^fuzz: [0-9]/' >> "$log"; echo "== $(stamp) rc=${PIPESTATUS[0]}" >> "$log"; }
cpu() { awk '/^cpu /{print $2+$3+$4+$6+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat; }
busy() { read b0 t0_ <<<"$1"; read b1 t1_ <<<"$2"; awk -v b="$((b1-b0))" -v t="$((t1_-t0_))" 'BEGIN{printf "cpu busy %.0f%%\n", 100*b/t}'; }
{ nvidia-smi --query-gpu=name,driver_version,uuid,memory.total --format=csv,noheader; nproc; lscpu | grep -E "Model name|^CPU\(s\)"; } >> "$log" 2>&1
# 1. throughput, mma.sync, all 7 distributions (whole tiles, 32 batches of 16,384 cases per run)
c0=$(cpu); run "$N" fuzz --instr mma --time 20s --seed 11 --batches-per-round 32 --out "$OUT/tp-mma"; busy "$c0" "$(cpu)" >> "$log"
# 2. the host side alone: the built-in model plays the device (two emulations per case)
[ -n "$emu" ] && run "$N" fuzz --instr mma --time 8s --seed 11 --batches-per-round 32 --backend emu --device-model "$B/bundle/sm_90.json" --out "$OUT/tp-mma-emu"
# 3. throughput, wgmma N=256 (16,384 cases per tile)
c0=$(cpu); run "$N" fuzz --instr wgmma --wgmma-n 256 --time 10s --seed 12 --out "$OUT/tp-wgmma-n256"; busy "$c0" "$(cpu)" >> "$log"
# 4. the campaign: all 408 sm_90 instructions (every legal wgmma N) x 7 distributions,
#    360,448 cases per pair = 1,029,439,488 cases; sessions joined by --resume
camp="$OUT/$label-all"
args=(fuzz --instr all --cases 360448 --batch 8192 --batches-per-round 64 --seed "$seed" --out "$camp")
run "$N" "${args[@]}" --time "${first}s"
while [ -f "$camp/checkpoint.json" ] && ! grep -q '"complete": true' "$camp/summary.json"; do
  left=$((budget - ($(date +%s) - t0)))
  [ "$left" -lt 40 ] && { echo "== out of time, campaign incomplete" >> "$log"; break; }
  run "$N" "${args[@]}" --resume --time "$(( left < 150 ? left - 20 : 150 ))s"
done
cd "$OUT" && tar czf results.tar.gz log.txt self-check-cache */summary.json */mismatches.tcc 2>/dev/null
ls -la "$OUT" >> "$log"
tail -30 "$log"

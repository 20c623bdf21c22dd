#!/bin/sh
# numprobe fuzz under mpirun (OpenMPI): 2 ranks take shards 0/2 and 1/2 from the launcher, and
# their merged report equals the unsharded campaign's. The stand-in device keeps 24 bits for bf16.
# Usage: fuzz_mpi_test.sh NUMPROBE MPIRUN WORKDIR
set -eu
numprobe=$1 mpirun=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$numprobe" list --arch sm_90 --print-model > "$work/sm90.json"
python3 - "$work" <<'PY'
import json, sys, copy
work = sys.argv[1]
m = json.load(open(f"{work}/sm90.json"))
r = copy.deepcopy(m["rules"][-1]); r.update(inputs="bf16", frac_bits=24, source="test")
m["name"] = "sm_90-bf16-F24"; m["rules"].insert(0, r)
json.dump(m, open(f"{work}/device.json", "w"))
PY
args="--backend emu --device-model $work/device.json --instr mma.m16n8k16.f32.bf16.bf16.f32,mma.m16n8k8.f32.f16.f16.f32 --dist normal,boundary --cases 20000 --seed 3 --batch 1024 --threads 1 --quiet"
"$numprobe" fuzz $args --out "$work/whole" > /dev/null || test $? -eq 1
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  "$mpirun" -np 2 --oversubscribe "$numprobe" fuzz $args --shard mpi --out "$work/mpi" > /dev/null || test $? -eq 1
"$numprobe" fuzz merge "$work/mpi/shard-0" "$work/mpi/shard-1" --out "$work/merged"
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def outcome(d):
    s = json.load(open(f"{work}/{d}/summary.json"))
    return [s[k] for k in ("counts", "signatures", "totals", "complete")]
whole, merged = outcome("whole"), outcome("merged")
shards = [json.load(open(f"{work}/mpi/shard-{i}/summary.json"))["config"]["shard"] for i in (0, 1)]
assert shards == [0, 1], shards
assert whole[2]["mismatches"] > 0, whole[2]
assert merged == whole, (merged, whole)
print("mpirun -np 2: shards", shards, "merged =", whole[2])
PY

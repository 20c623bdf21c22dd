#!/bin/bash
# Feature tests on the GPU with tcnum's default instruction (wgmma on sm_90 since b62ccb2).
set -u
D=$(dirname "$0"); export LD_LIBRARY_PATH=$D
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
for dt in bf16 fp16 tf32 e4m3; do
  /usr/bin/time -f "%e s" timeout 240 $D/numprobe features --backend device --dtype $dt --op all > $OUT/features-$dt.txt 2>&1
  echo "$dt rc=$?" >> $OUT/rc.txt
done
$D/numprobe features --backend device --dtype bf16 --op all --json > $OUT/features-bf16.json 2> $OUT/features-bf16.err
echo "bf16 json rc=$?" >> $OUT/rc.txt
cat $OUT/rc.txt

#!/bin/bash
# Device run (CPU only): this session's kernel changes A/B on the H100 host's Xeon. Builds
# tcnum_bench of 8e05634 (the session's start, .dev/base.tgz) and of this tree with carried
# Google Benchmark + MPFR (.dev/deps.tgz), then runs each class's one-thread GEMM in its own
# process, old and new alternating, pinned to one core: every class at 512^3, the Hopper-era
# classes at 256^3 too. PAIRS (default 3) rounds.
set -uo pipefail
t0=$SECONDS
pairs=${PAIRS:-3}
rm -rf /tmp/m /tmp/new /tmp/old /tmp/base; mkdir -p /tmp/m && tar xzf .dev/deps.tgz -C /tmp/m && tar xzf .dev/base.tgz -C /tmp
export LD_LIBRARY_PATH=/tmp/m/lib:/tmp/m/lib/x86_64-linux-gnu
opts="-G Ninja -DCMAKE_BUILD_TYPE=Release -DTCNUM_CUDA=OFF -DTCNUM_BUILD_TESTS=OFF -DTCNUM_PYTHON=OFF -DCMAKE_PREFIX_PATH=/tmp/m"
(cmake -S . -B /tmp/new $opts && cmake --build /tmp/new -j8 --target tcnum_bench) > $OUT/build-new.log 2>&1 &
(cmake -S /tmp/base -B /tmp/old $opts && cmake --build /tmp/old -j8 --target tcnum_bench) > $OUT/build-old.log 2>&1 &
wait
ls /tmp/new/bench/tcnum_bench /tmp/old/bench/tcnum_bench || { tail -n 20 $OUT/build-new.log; tail -n 20 $OUT/build-old.log; exit 1; }
echo "built at $((SECONDS - t0)) s"; lscpu | grep -E "Model name|^CPU\(s\)"
hopper="bf16_mma_sm90 bf16_wgmma_sm90 f16_f16_wgmma_sm90 tf32_wgmma_sm90 e4m3_wgmma_sm90 e4m3_mma_sm90 bf16_mma_sm80"
others="f16_m8n8k4_sm70 e4m3_tcgen05_sm100 e2m1_f8f6f4_sm100 e3m2_e2m3_f8f6f4_sm100 mxf8_e4m3_sm100 mxf4_sm100 nvf4_sm100 e4m3_mma_sm120 e2m1_mma_sm120 mxf4_mma_sm120 nvf4_mma_sm120"
run() {  # pair class size
  for v in old new; do
    taskset -c 3 /tmp/$v/bench/tcnum_bench --benchmark_filter="^Gemm/$2/size:$3/threads:1/reference:0/" \
      --benchmark_min_time=0.3 --benchmark_format=json 2>/dev/null |
      python3 -c "import json,sys; d=json.load(sys.stdin); [print(json.dumps({'pair':$1,'v':'$v','name':b['name'],'cpu_time':b['cpu_time'],'cpu_vs_eigen_float':b.get('cpu_vs_eigen_float')})) for b in d['benchmarks']]" >> $OUT/pairs.jsonl
  done
}
for p in $(seq $pairs); do
  for c in $hopper; do run $p $c 256; run $p $c 512; done
  for c in $others; do run $p $c 512; done
  echo "pair $p done at $((SECONDS - t0)) s"
done
python3 - <<'PY'
import json, os, statistics as st
rows=[json.loads(l) for l in open(os.environ['OUT']+'/pairs.jsonl')]
by={}
for r in rows:
    n=r['name'].split('/')
    by.setdefault(n[1]+' '+n[2],{}).setdefault(r['pair'],{})[r['v']]=r
for c,ps in by.items():
    ratios=[ps[p]['old']['cpu_time']/ps[p]['new']['cpu_time'] for p in sorted(ps) if 'old' in ps[p] and 'new' in ps[p]]
    old=[100/ps[p]['old']['cpu_vs_eigen_float'] for p in ps if 'old' in ps[p]]
    new=[100/ps[p]['new']['cpu_vs_eigen_float'] for p in ps if 'new' in ps[p]]
    print(f"{c:36s} new/old speed {st.median(ratios):.3f} {['%.2f'%x for x in ratios]}  share old {st.median(old):.1f}% new {st.median(new):.1f}%")
PY
echo "end at $((SECONDS - t0)) s"

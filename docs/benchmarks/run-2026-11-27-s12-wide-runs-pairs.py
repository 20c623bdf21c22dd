# Interleaved A/B: per config, base then new, 4 pairs, one 512^3 one-thread GEMM benchmark per process.
import json, subprocess, sys, os, time
cfgs = ["bf16_mma_sm90","bf16_wgmma_sm90","f16_f16_wgmma_sm90","tf32_wgmma_sm90","e4m3_wgmma_sm90","e4m3_mma_sm90",
        "bf16_mma_sm80","e4m3_tcgen05_sm100","e2m1_f8f6f4_sm100","e3m2_e2m3_f8f6f4_sm100","mxf8_e4m3_sm100","mxf4_sm100",
        "nvf4_sm100","e4m3_mma_sm120","e2m1_mma_sm120","mxf4_mma_sm120","nvf4_mma_sm120","f16_m8n8k4_sm70"]
out = open(os.environ["OUT"] + "/pairs.jsonl", "w")
t0 = time.time()
for c in cfgs:
    for i in range(int(sys.argv[1])):
        for v in ["base", "new"]:
            r = subprocess.run(["taskset", "-c", "5", f"/tmp/{v}/bench/tcnum_bench",
                                f"--benchmark_filter=^Gemm/{c}/size:512/threads:1/reference:0",
                                "--benchmark_min_time=0.15", "--benchmark_format=json"], capture_output=True, text=True)
            try:
                b = json.loads(r.stdout)["benchmarks"][0]
                out.write(json.dumps({"cfg": c, "v": v, "i": i, "cpu": b["cpu_time"], "share": 1 / b["cpu_vs_eigen_float"]}) + "\n")
            except Exception as e:
                out.write(json.dumps({"cfg": c, "v": v, "i": i, "error": str(e), "stderr": r.stderr[-300:]}) + "\n")
    out.flush()
    print(c, round(time.time() - t0), "s", flush=True)

"""The binding's overhead: tcnum.gemm on numpy/ml_dtypes arrays from Python against the same
tcnum::gemm call made from C++ in the same process (on uint32 vectors prepared beforehand).
The two are timed alternately (each first in every other round), so machine noise hits
both alike; medians are reported.

    python3 python/benchmarks/gemm_overhead.py [--size 512] [--repeats 5] [--threads 1 2]
"""

import argparse
import os
import statistics
import time

import ml_dtypes
import numpy as np

import tcnum
from tcnum import _tcnum


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, os.cpu_count()])
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()

    n = args.size
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((n, n)).astype(ml_dtypes.bfloat16)
    instr = tcnum.gemm(a[:1, :16], b[:16, :1], arch=args.arch).instruction.name
    model = _tcnum.Model.builtin(tcnum.arch_number(args.arch))
    a32, b32 = tcnum.to_bits(a).astype(np.uint32), tcnum.to_bits(b).astype(np.uint32)
    c32 = np.zeros((n, n), np.uint32)
    print(f"{n}³ bf16 tcnum.gemm, {instr}, {args.arch}; {args.repeats} runs each, alternating")
    for threads in args.threads:
        py, cpp = [], []

        def time_python():
            t0 = time.perf_counter()
            tcnum.gemm(a, b, arch=args.arch, threads=threads)
            py.append(time.perf_counter() - t0)

        def time_cpp():
            cpp.extend(_tcnum.cpp_gemm_seconds(model, instr, a32, b32, c32, n, n, n, 1, threads))

        for r in range(args.repeats):  # alternate, and alternate which goes first
            for run in ((time_python, time_cpp) if r % 2 == 0 else (time_cpp, time_python)):
                run()
        mp, mc = statistics.median(py), statistics.median(cpp)
        print(f"threads {threads}: Python {mp * 1e3:9.2f} ms   C++ {mc * 1e3:9.2f} ms   "
              f"Python/C++ {mp / mc:.3f}   ({n**3 / mc / 1e6:.1f} M MAC/s)")


if __name__ == "__main__":
    main()

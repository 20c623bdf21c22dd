#!/usr/bin/env python3
"""Which MMA instructions a recorded JAX/XLA call's compiled kernels use: compiles the call again
with XLA's dump on and reads the PTX.

On the GPU host (jax with CUDA), from the repository root:

    python3 tools/libraries/capture_xla_ptx.py --out /tmp/xla_ptx.json \\
        corpora/h100-libraries/triton-jax-seed3/jax.jsonl.gz:272

For each CORPUS:INDEX (a `jax.dot` line of docs/library-corpus.md §6): the inputs are rebuilt
(the corpus generator, on the CPU), the call is compiled under jax.jit with XLA_FLAGS
`--xla_dump_to` (this script sets it before importing jax), executed, and its sampled output
compared with the recorded bits (did XLA choose the same program?). Every file dumped for that
compile (HLO, LLVM IR with `--xla_gpu_dump_llvmir`, the emitters' IR with
`--xla_dump_emitter_re`: Triton's MMAs are inline PTX there) is searched: the distinct
`mma`/`wgmma` instruction names and the `.maxntid`/`.reqntid` thread counts. Writes one JSON object per call
to --out (a JSON list) and keeps the files that name an MMA, per call, as --out's name + `.<index>.ptx`.
Exit status 0 when written, 2 on bad arguments or an existing output.
"""

import argparse
import json
import os
import pathlib
import re
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import rerun  # noqa: E402  (beside this script)
MMA = re.compile(r"\b((?:wgmma\.mma_async|mma)\.[A-Za-z0-9_.]+)")
MMA_VERSION = re.compile(r"nvidia_mma<\{versionMajor = (\d+), versionMinor = (\d+)")
THREADS = re.compile(r"\.(?:maxntid|reqntid)\s+(\d+)(?:,\s*(\d+))?(?:,\s*(\d+))?")


def fail(msg):
    rerun.fail("capture_xla_ptx", msg)


def read_call(ref):
    return rerun.read_call("capture_xla_ptx", ref, lambda rec: None if rec["call"] == "jax.dot" else "not a jax.dot line")


def load_capture_module():
    return rerun.load_sibling("capture_triton_jax")


def ptx_summary(files):
    """MMA instructions and thread counts in the dumped files: PTX, and the LLVM IR and Triton IR
    of the fusions (Triton emits its MMAs as inline PTX)."""
    mma, threads, text = set(), set(), []
    for f in files:
        body = f.read_text(errors="replace")
        found = MMA.findall(body) + [f"triton nvidia_mma v{a}.{b}" for a, b in MMA_VERSION.findall(body)]
        if not found:
            continue
        text.append(f"// ---- {f.name}\n{body}")
        mma.update(found)
        threads.update(",".join(x for x in t if x) for t in THREADS.findall(body))
    return sorted(mma), sorted(threads), "\n".join(text)


def run_one(ctj, jax, cfg, dump):
    import numpy as np
    before = set(dump.rglob("*"))
    m, n, k = cfg["m"], cfg["n"], cfg["k"]
    a = ctj.host_operand(None, cfg, 1, m, k, cfg["a"])
    b = ctj.host_operand(None, cfg, 2, k, n, cfg["b"])
    if cfg["layout"]["b"] == "col":
        b = np.ascontiguousarray(b.T)
    fn = ctj.jax_fn(cfg["jax"]["class"], cfg["layout"]["b"])
    compiled = fn.lower(jax.device_put(a), jax.device_put(b)).compile()
    out = np.asarray(compiled(jax.device_put(a), jax.device_put(b)))
    got = ctj.bits_np(out, cfg["rows"], cfg["cols"])
    new = sorted(p for p in set(dump.rglob("*")) - before if p.is_file())
    mma, threads, text = ptx_summary(new)
    return {"index": cfg["index"], "m": m, "n": n, "k": k, "a": cfg["a"], "dist": cfg["inputs"]["dist"],
            "recorded_xla": {key: cfg["xla"].get(key) for key in ("custom_call", "split_k", "tile", "num_warps")},
            "same_sample_bits": got == cfg["out_bits"], "mma_instructions": mma, "threads": threads,
            "dumped_files": [p.name for p in new]}, text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("calls", nargs="+", help="CORPUS:INDEX of jax.dot lines")
    ap.add_argument("--out", required=True, help="JSON file to write (never overwritten)")
    args = ap.parse_args(argv)
    out = pathlib.Path(args.out)
    if out.exists():
        fail(f"{out} exists; not overwritten")
    calls = [read_call(ref) for ref in args.calls]
    dump = pathlib.Path(tempfile.mkdtemp(prefix="xla_dump_"))
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + f" --xla_dump_to={dump} --xla_dump_hlo_as_text --xla_gpu_dump_llvmir"
                               " --xla_dump_emitter_re=.*").strip()
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    ctj = load_capture_module()
    import jax
    import jax.numpy as jnp
    ctj.jax, ctj.jnp = jax, jnp
    results = []
    for cfg in calls:
        rec, text = run_one(ctj, jax, cfg, dump)
        pathlib.Path(f"{out}.{cfg['index']}.ptx").write_text(text)
        print(json.dumps(rec), flush=True)
        results.append(rec)
    out.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

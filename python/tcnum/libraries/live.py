"""Planning on the GPU host: run the library call, read the kernels it launched, reveal its plan
from its outputs, and cache the plan where tcnum.libraries.lookup finds it on any machine.

    plan = tcnum.libraries.live.plan_torch(lambda a, b: torch.mm(a, b, out_dtype=torch.float32),
                                           a="bf16", b="bf16", out="f32", m=1000, n=777, k=3001,
                                           call="torch.mm", cache_dir="plans/")
    # later, anywhere (no GPU): tcnum.libraries.lookup("torch.mm", a="bf16", out="f32", m=1000, n=777,
    #                                                   k=3001, folder="plans/")

plan_live is the GPU-free core (a black box and the kernel names it ran), tested on the CPU.
"""

from __future__ import annotations

import gzip
import json
import os
import pathlib

import numpy as np

from . import cublaslt_log
from .plans import Unexplained, candidates
from .reveal import Revealed, reveal


def plan_live(black_box, *, a: str, b: str, out: str, m: int, n: int, k: int, kernels: list[str],
              flags: dict | None = None, heuristic: dict | None = None, cublaslt: list | None = None,
              budget: int = 3000) -> Revealed:
    """The plan of black_box(A, B) -> D, searched in the order the kernel names' rule gives;
    `cublaslt`: the algorithms cuBLASLt logged for the call (cublaslt_log.lt_algos), whose split
    count and algo id the rule then reads, as it does for recorded calls."""
    call = {"call": "live", "kernels": list(kernels), "a": a, "b": b, "out": out, "m": m, "n": n, "k": k, "flags": dict(flags or {}),
            "bias": None, "heuristic": heuristic, "batch": 1}
    if cublaslt:
        call["cublaslt"] = list(cublaslt)
    try:
        plans = candidates(call)
    except Unexplained as e:
        return Revealed(None, 0, 0, 0, str(e))
    return reveal(black_box, a, b, m, n, k, out=out, plans=plans, budget=budget)


def cache_plan(cache_dir, call: str, *, a: str, b: str, out: str, m: int, n: int, k: int, flags: dict | None,
               kernels: list[str], found: Revealed, device: dict | None = None) -> pathlib.Path:
    """Appends the plan (or why there is none) to cache_dir/live-plans.jsonl.gz, a plan table."""
    folder = pathlib.Path(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "live-plans.jsonl.gz"
    entry = {"corpus": "live", "index": None, "call": call, "a": a, "b": b, "out": out, "m": m, "n": n, "k": k,
             "bias": False, "batch": 1, "flags": dict(flags or {}), "kernels": list(kernels)}
    if found.plan is None:
        entry.update(plan=None, reason=found.reason, best_matched=found.best_matched, total=found.total)
    else:
        entry.update(plan={"instruction": found.plan.instruction, "schedule": json.loads(found.plan.schedule.to_json())},
                     source=found.plan.source, tried=found.tried)
    lines = []
    if path.exists():
        with gzip.open(path, "rt", encoding="utf-8") as f:
            lines = [ln.rstrip("\n") for ln in f if ln.strip()]
    if not lines:
        lines = [json.dumps({"kind": "tcnum-library-plans", "version": 1, "corpora": ["live"], "device": device})]
    lines.append(json.dumps(entry, sort_keys=True))
    tmp = path.with_suffix(".partial")
    with gzip.open(tmp, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)
    return path


_LOGGER = []


def _cublaslt_logger():  # pragma: no cover - needs a GPU
    """One cuBLASLt log capture per process (its callback stays registered), or None where
    libcublasLt cannot be loaded: then the plan's split count is searched, not read."""
    if not _LOGGER:
        try:
            _LOGGER.append(cublaslt_log.LtLogCapture(toggle=True))
        except (OSError, RuntimeError, AttributeError):
            _LOGGER.append(None)
    return _LOGGER[0]


def plan_torch(fn, *, a: str, b: str, out: str, m: int, n: int, k: int, call: str = "torch", flags: dict | None = None,
               cache_dir=None, budget: int = 3000) -> Revealed:  # pragma: no cover - needs a GPU
    """On the GPU host: fn(A, B) on CUDA torch tensors; its kernels read by torch.profiler and the
    algorithm (split count) its cuBLASLt matmul ran read from cuBLASLt's log, as the recorded
    calls' rules read it."""
    import torch  # noqa: PLC0415
    from torch.profiler import ProfilerActivity, profile  # noqa: PLC0415

    torch_types = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32, "e4m3": torch.float8_e4m3fn,
                   "e5m2": torch.float8_e5m2}

    def to_torch(x, t):
        return torch.from_numpy(np.ascontiguousarray(x).astype(np.float32)).to("cuda").to(torch_types[t])

    def box(A, B):
        d = fn(to_torch(A, a), to_torch(B, b))
        return d.float().cpu().numpy() if out == "f32" else d.cpu().view(torch.int16).numpy().view(np.uint16)

    probe_a, probe_b = to_torch(np.ones((m, k), np.float32), a), to_torch(np.ones((k, n), np.float32), b)
    logger = _cublaslt_logger()
    if logger is not None:
        logger.start()
    try:
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn(probe_a, probe_b)
            torch.cuda.synchronize()
    finally:
        logged = cublaslt_log.lt_algos(logger.stop()) if logger is not None else None
    kernels = [e.name for e in prof.events() if e.device_type.name == "CUDA"]
    found = plan_live(box, a=a, b=b, out=out, m=m, n=n, k=k, kernels=kernels, flags=flags, cublaslt=logged,
                      budget=budget)
    if cache_dir is not None:
        cache_plan(cache_dir, call, a=a, b=b, out=out, m=m, n=n, k=k, flags=flags, kernels=kernels, found=found,
                   device={"gpu": torch.cuda.get_device_name(), "torch": torch.__version__})
    return found

"""Plan tables: the plans of recorded library calls, shipped with the package, for reproducing a
library call on a machine without a GPU.

    plan = tcnum.libraries.lookup("torch.mm", a="bf16", b="bf16", out="f32", m=4096, n=4096, k=4096)
    d = tcnum.gemm(a, b, instr=plan.instruction, schedule=plan.schedule)

A table line holds the call, its flags and shape and the plan that reproduced every recorded
output bit on the GPU it was recorded on (tools/libraries/reveal_corpus.py writes them; the
header names the corpora and their provenance). A call that is not in a table is an error that
names the tables searched: tcnum never guesses a plan silently.
"""

from __future__ import annotations

import gzip
import json
import pathlib

from .._schedule import Schedule
from .replay import Plan

TABLES = pathlib.Path(__file__).resolve().parent / "tables"
_FLAG_KEYS = ("allow_tf32", "allow_bf16_reduced_precision_reduction", "allow_fp16_reduced_precision_reduction",
              "use_fast_accum")


class PlanNotFound(LookupError):
    """The call is not in any plan table (the message names the tables searched)."""


def read_table(path) -> tuple[dict, list[dict]]:
    """(header, entries) of one plan table (.jsonl.gz)."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        lines = [json.loads(ln) for ln in f if ln.strip()]
    if not lines or lines[0].get("kind") != "tcnum-library-plans":
        raise ValueError(f"{path}: not a tcnum-library-plans table")
    return lines[0], lines[1:]


def plan_of(entry: dict) -> Plan | None:
    """The entry's plan (None where the table says no plan reproduces the call)."""
    p = entry.get("plan")
    if not p:
        return None
    sched = dict(p["schedule"])
    sched.pop("version", None)
    return Plan(p["instruction"], Schedule(**sched), entry.get("source", "table"))


def _key(call, a, b, out, m, n, k, bias, flags):
    f = tuple((name, (flags or {}).get(name)) for name in _FLAG_KEYS)
    return (call, a, b, out, int(m), int(n), int(k), bool(bias), f)


def _entry_key(e: dict):
    return _key(e["call"], e["a"], e.get("b", e["a"]), e["out"], e["m"], e["n"], e["k"], e.get("bias"), e.get("flags"))


def tables(folder=TABLES) -> list[pathlib.Path]:
    return sorted(pathlib.Path(folder).glob("*.jsonl.gz"))


_CACHE: dict = {}


def lookup(call: str, *, a: str, b: str | None = None, out: str, m: int, n: int, k: int, bias: bool = False,
           flags: dict | None = None, folder=TABLES) -> Plan:
    """The recorded plan of a library call (flags: torch.backends.cuda.matmul's allow_* and
    _scaled_mm's use_fast_accum, as the corpus lines hold them; None = torch's defaults).
    Raises PlanNotFound naming the tables searched when the call is not in them, or when the
    table records that no plan reproduces it (with the reason)."""
    paths = tables(folder)
    if str(folder) not in _CACHE:
        index = {}
        for path in paths:
            for e in read_table(path)[1]:
                if "flags" in e:
                    index.setdefault(_entry_key(e), []).append((path.name, e))
        _CACHE[str(folder)] = index
    index = _CACHE[str(folder)]
    want = _key(call, a, b or a, out, m, n, k, bias, flags)
    hits = index.get(want)
    if flags is None and not hits:  # any recorded flags for this call and shape
        hits = [h for key, hs in index.items() if key[:8] == want[:8] for h in hs]
    if not hits:
        names = ", ".join(p.name for p in paths) or f"none in {folder}"
        raise PlanNotFound(f"{call} {a}×{b or a}→{out} {m}×{n}×{k}{' with bias' if bias else ''} (flags {flags}) is "
                           f"not in the plan tables ({names}); plan it on a GPU host "
                           "(tools/libraries/capture_torch.py, then tools/libraries/reveal_corpus.py)")
    name, entry = hits[0]
    plan = plan_of(entry)
    if plan is None:
        raise PlanNotFound(f"{call} {m}×{n}×{k}: table {name} records no reproducing plan: {entry.get('reason')}")
    return plan

#!/usr/bin/env python3
"""Reveal the plan of every recorded library call and write the plan table.

For each configuration of the library corpora (docs/library-corpus.md) the plan by rule (from its
kernel names and cuBLASLt's heuristic) is checked against the recorded output bits; where it
fails, reveal searches candidate plans (tcnum.libraries.reveal). The table records, per
configuration, the plan that reproduces every recorded bit and whether the rule gave it, or
why none does.

Example (one of the shipped tables; about 3 min on 2 cores):
    PYTHONPATH=build/python python3 tools/libraries/reveal_corpus.py corpora/h100-libraries/grid-pow2/*.jsonl.gz \\
        --out python/tcnum/libraries/tables/h100-torch2.11-grid-pow2.jsonl.gz --jobs 2

Each entry names its corpus file as "<folder>/<file>" and the configuration's index.

Exit status: 0 written, 2 bad input or an existing output (use --force to replace it).
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor


def _reveal_one(args):
    family, index, call, budget = args
    from tcnum.libraries.reveal import reveal_recorded  # noqa: PLC0415 (per worker)

    r = reveal_recorded(call, budget)
    entry = {"corpus": family, "index": index, "call": call["call"], "m": call["m"], "n": call["n"], "k": call["k"],
             "a": call["a"], "b": call["b"], "out": call["out"], "bias": bool(call.get("bias")), "batch": call["batch"],
             "flags": call["flags"], "kernels": call["kernels"]}
    if call.get("logged"):
        entry["logged"] = call["logged"]
    if r.plan is None:
        entry.update(plan=None, reason=r.reason, best_matched=r.best_matched, total=r.total, tried=r.tried)
    else:
        entry.update(plan={"instruction": r.plan.instruction, "schedule": json.loads(r.plan.schedule.to_json())},
                     source=r.plan.source, tried=r.tried)
    return entry


def _still_holding(table: str, work: list) -> dict:
    """The entries of an earlier table that need no new reveal: a plan, and where it is marked
    rule, still the plan the rule gives today."""
    from tcnum.libraries.plans import Unexplained, plan_for  # noqa: PLC0415

    with gzip.open(table, "rt", encoding="utf-8") as f:
        old = {(e["corpus"], e["index"]): e for e in map(json.loads, list(f)[1:])}
    kept = {}
    for name, index, call, _ in work:
        e = old.get((name, index))
        if e is None or e.get("plan") is None:
            continue
        if e.get("source") == "rule":
            try:
                rule = plan_for(call)
            except Unexplained:
                continue
            if rule.instruction != e["plan"]["instruction"] or json.loads(rule.schedule.to_json()) != e["plan"]["schedule"]:
                continue
        kept[(name, index)] = e
    return kept


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="+", help="library corpus files (.jsonl.gz)")
    ap.add_argument("--out", required=True, help="the plan table to write (.jsonl.gz)")
    ap.add_argument("--budget", type=int, default=3000, help="candidates tried per call (default 3000)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--force", action="store_true", help="replace an existing --out")
    ap.add_argument("--update", metavar="TABLE",
                    help="keep TABLE's entries that still hold (a plan, and where marked rule, today's rule) and "
                         "reveal only the others: calls it leaves unexplained, or whose rule has changed")
    ap.add_argument("--log", action="append", default=[],
                    help="cuBLASLt logs of the same calls (tools/libraries/heuristic_variants.py output): the "
                         "logged split count replaces the heuristic's in the rule")
    args = ap.parse_args(argv)
    from tcnum.libraries.corpus import LibraryCorpusError, read_library_corpus  # noqa: PLC0415

    if not 1 <= args.budget <= 10**6 or not 1 <= args.jobs <= 1024:
        print("reveal_corpus: --budget must be in 1..10^6 and --jobs in 1..1024", file=sys.stderr)
        return 2
    if os.path.exists(args.out) and not args.force:
        print(f"reveal_corpus: {args.out} exists; pass --force to replace it", file=sys.stderr)
        return 2
    logs = {}
    for path in args.log:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for line in list(f)[1:]:
                e = json.loads(line)
                if e.get("logged"):
                    logs[(e["corpus"], e["index"])] = [x for x in e["logged"] if isinstance(x, dict)]
    work = []
    try:
        for path in args.corpora:
            header, calls = read_library_corpus(path)
            name = "/".join(os.path.abspath(path).split(os.sep)[-2:])  # e.g. grid-pow2/mm_half.jsonl.gz
            for c in calls:
                if (name, c.get("index")) in logs:
                    c = {**c, "logged": logs[(name, c.get("index"))]}  # a copy: the corpus line stays as recorded
                work.append((name, c.get("index"), c, args.budget))
    except LibraryCorpusError as e:
        print(f"reveal_corpus: {e}", file=sys.stderr)
        return 2
    kept = _still_holding(args.update, work) if args.update else {}
    todo = [w for w in work if (w[0], w[1]) not in kept]
    t0, revealed, counts = time.time(), {}, collections.Counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for i, entry in enumerate(pool.map(_reveal_one, todo, chunksize=8), 1):
            revealed[(entry["corpus"], entry["index"])] = entry
            counts[entry.get("source", "none")] += 1
            if i % 100 == 0 or i == len(todo):
                print(f"reveal_corpus: {i}/{len(todo)} calls, {dict(counts)}, {time.time() - t0:.0f} s", file=sys.stderr)
    entries = [kept.get((w[0], w[1])) or revealed[(w[0], w[1])] for w in work]
    counts = collections.Counter(e.get("source", "none") for e in entries)
    folder = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".partial")
    with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        header0 = read_library_corpus(args.corpora[0])[0]
        head = {"kind": "tcnum-library-plans", "version": 1,
                "corpora": ["/".join(os.path.abspath(p).split(os.sep)[-2:]) for p in args.corpora],
                "device": header0.get("device"), "recorded": header0.get("recorded"), "budget": args.budget,
                "counts": dict(counts), "tool": "tools/libraries/reveal_corpus.py"}
        f.write((json.dumps(head) + "\n").encode())
        for e in entries:
            f.write((json.dumps(e, sort_keys=True) + "\n").encode())
    os.replace(tmp, args.out)
    print(json.dumps({"out": args.out, "calls": len(entries), **counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

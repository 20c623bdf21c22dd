"""Command line: replay library corpora with their plan tables, or look a call up.

    python3 -m tcnum.libraries replay corpora/h100-libraries/**/*.jsonl.gz
    python3 -m tcnum.libraries replay --json corpora/h100-libraries/grid-pow2/mm_half.jsonl.gz
    python3 -m tcnum.libraries lookup torch.mm --a bf16 --out f32 --shape 4096x4096x4096

replay: every configuration of each file through the plan its table records (tables shipped in
tcnum/libraries/tables, or --tables DIR); the closing line is "N passed, M failed, U unexplained"
(unexplained: the table records that no plan reproduces the call, and why). Exit status 0 only
when nothing failed and every file held a configuration; 1 on a failed configuration; 2 on bad
input (an unreadable or malformed file, a configuration missing from the tables).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys


def _replay(args) -> int:
    from . import corpus, replay, tables  # noqa: PLC0415

    index = {}
    for path in tables.tables(args.tables):
        for e in tables.read_table(path)[1]:
            index[(e["corpus"], e["index"])] = e
    report, passed, failed, unexplained = [], 0, 0, 0
    for name in args.files:
        path = pathlib.Path(name)
        try:
            _, calls = corpus.read_library_corpus(path)
        except corpus.LibraryCorpusError as e:
            print(f"tcnum.libraries replay: {e}", file=sys.stderr)
            return 2
        if not calls:
            print(f"tcnum.libraries replay: {path}: no configuration", file=sys.stderr)
            return 2
        key = f"{path.resolve().parent.name}/{path.name}"
        counts = {"file": str(path), "passed": 0, "failed": 0, "unexplained": 0}
        for i, call in enumerate(calls, 1):
            entry = index.get((key, call["index"]))
            if entry is None:
                print(f"tcnum.libraries replay: {key} #{call['index']} is in no plan table "
                      f"(tables: {args.tables}); make one with tools/libraries/reveal_corpus.py", file=sys.stderr)
                return 2
            plan = tables.plan_of(entry)
            if plan is None:
                counts["unexplained"] += 1
            elif replay.reproduce(call, plan).ok:
                counts["passed"] += 1
            else:
                counts["failed"] += 1
                print(f"FAIL {key} #{call['index']}: {call['call']} {call['m']}×{call['n']}×{call['k']}", file=sys.stderr)
            if args.progress and i % 200 == 0:
                print(f"{key}: {i}/{len(calls)}", file=sys.stderr)
        report.append(counts)
        passed, failed, unexplained = passed + counts["passed"], failed + counts["failed"], unexplained + counts["unexplained"]
        if not args.json:
            print(f"{key}: {counts['passed']} passed, {counts['failed']} failed, {counts['unexplained']} unexplained")
    if args.json:
        print(json.dumps({"files": report, "passed": passed, "failed": failed, "unexplained": unexplained}, indent=2))
    print(f"{passed} passed, {failed} failed, {unexplained} unexplained")
    return 1 if failed else 0


def _lookup(args) -> int:
    from . import tables  # noqa: PLC0415

    try:
        m, n, k = (int(x) for x in args.shape.lower().split("x"))
    except ValueError:
        print(f"tcnum.libraries lookup: --shape must be MxNxK, got {args.shape!r}", file=sys.stderr)
        return 2
    try:
        plan = tables.lookup(args.call, a=args.a, b=args.b, out=args.out, m=m, n=n, k=k, bias=args.bias,
                             folder=args.tables)
    except tables.PlanNotFound as e:
        print(f"tcnum.libraries lookup: {e}", file=sys.stderr)
        return 2
    print(json.dumps({"instruction": plan.instruction, "schedule": json.loads(plan.schedule.to_json()),
                      "source": plan.source}, indent=2))
    return 0


def main(argv=None) -> int:
    from . import tables  # noqa: PLC0415

    ap = argparse.ArgumentParser(prog="python3 -m tcnum.libraries", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("replay", help="replay library corpus files with their plan tables")
    r.add_argument("files", nargs="+")
    r.add_argument("--tables", default=str(tables.TABLES), help="folder of plan tables (default: the shipped ones)")
    r.add_argument("--json", action="store_true", help="per-file counts as JSON before the closing line")
    r.add_argument("--progress", action="store_true", help="progress on stderr every 200 configurations")
    lk = sub.add_parser("lookup", help="the recorded plan of a call")
    lk.add_argument("call", help="torch.mm, torch.matmul, torch.addmm, torch.nn.functional.linear, torch._scaled_mm, ...")
    lk.add_argument("--a", required=True)
    lk.add_argument("--b")
    lk.add_argument("--out", required=True)
    lk.add_argument("--shape", required=True, help="MxNxK")
    lk.add_argument("--bias", action="store_true")
    lk.add_argument("--tables", default=str(tables.TABLES))
    args = ap.parse_args(argv)
    return _replay(args) if args.command == "replay" else _lookup(args)


if __name__ == "__main__":
    sys.exit(main())

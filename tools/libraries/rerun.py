"""What the tools that re-run recorded library calls on the GPU share: CORPUS:INDEX references to
lines of a library corpus (docs/library-corpus.md; a bad one exits with status 2) and loading
the capture scripts beside them as modules."""

import gzip
import importlib.util
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def load_sibling(name: str):
    """tools/libraries/<name>.py as a module (the capture scripts are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def fail(prog: str, msg: str):
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(2)


def read_call(prog: str, ref: str, accept) -> dict:
    """The call line `ref` = "path/to/corpus.jsonl.gz:INDEX"; accept(line) returns None when the
    tool can take the line, else why not."""
    path, _, index = ref.rpartition(":")
    if not path or not index.isdigit():
        fail(prog, f"{ref!r} is not CORPUS:INDEX")
    try:
        with gzip.open(path, "rt") as fh:
            for line in fh:
                rec = json.loads(line)
                if rec.get("index") == int(index) and "call" in rec:
                    why = accept(rec)
                    if why:
                        fail(prog, f"{ref}: {why}")
                    return rec
    except (OSError, ValueError) as e:
        fail(prog, f"{ref}: {e}")
    fail(prog, f"{ref}: no call with that index")

"""Library corpora (docs/library-corpus.md): reading and checking the JSON-lines files.

    header, calls = read_library_corpus("corpora/h100-libraries/mm_f32out.jsonl.gz")
"""

from __future__ import annotations

import gzip
import json
import os

KIND = "tcnum-library-corpus"
_TYPES = ("bf16", "f16", "f32", "e4m3", "e5m2")
_REQUIRED = {"call": str, "flags": dict, "a": str, "b": str, "out": str, "batch": int, "m": int, "n": int, "k": int,
             "inputs": dict, "rows": list, "cols": list, "kernels": list, "deterministic": bool, "out_bits": list}


class LibraryCorpusError(ValueError):
    """A library corpus file or line that is not what docs/library-corpus.md says."""


def _reject_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise LibraryCorpusError(f"duplicate key {key!r}")
        seen[key] = value
    return seen


def check_call(call: dict, where: str) -> dict:
    """The line's keys, types and sizes checked (raises LibraryCorpusError naming the line)."""
    if not isinstance(call, dict):
        raise LibraryCorpusError(f"{where}: a configuration is a JSON object")
    for key, typ in _REQUIRED.items():
        if key not in call:
            raise LibraryCorpusError(f"{where}: missing key {key!r}")
        if not isinstance(call[key], typ) or (typ is int and isinstance(call[key], bool)):
            raise LibraryCorpusError(f"{where}: {key!r} must be {typ.__name__}, got {call[key]!r}")
    for key in ("a", "b", "out"):
        if call[key] not in _TYPES:
            raise LibraryCorpusError(f"{where}: {key!r} = {call[key]!r} is not one of {_TYPES}")
    if not (1 <= call["m"] <= 1 << 20 and 1 <= call["n"] <= 1 << 20 and 1 <= call["k"] <= 1 << 24):
        raise LibraryCorpusError(f"{where}: shape {call['m']}×{call['n']}×{call['k']} is out of range")
    if not 1 <= call["batch"] <= 4096:
        raise LibraryCorpusError(f"{where}: batch = {call['batch']} is out of range")
    for key, bound in (("rows", call["m"]), ("cols", call["n"])):
        idx = call[key]
        if not idx or any(not isinstance(i, int) or not 0 <= i < bound for i in idx) or len(set(idx)) != len(idx):
            raise LibraryCorpusError(f"{where}: {key!r} must be distinct indices within [0, {bound})")
    items = call["out_bits"] if call["batch"] > 1 else [call["out_bits"]]
    want = len(call["rows"]) * len(call["cols"])
    if len(items) != call["batch"] or any(not isinstance(it, list) or len(it) != want for it in items):
        raise LibraryCorpusError(f"{where}: out_bits must hold {call['batch']} list(s) of {want} values")
    digits = 8 if call["out"] == "f32" else 4
    for it in items:
        for h in it:
            if not isinstance(h, str) or len(h) != digits or any(ch not in "0123456789abcdef" for ch in h):
                raise LibraryCorpusError(f"{where}: out_bits value {h!r} is not {digits} lower-case hex digits")
    inputs = call["inputs"]
    if inputs.get("generator") != "tcnum-irwin12-v1" or inputs.get("dist") not in ("normal", "wide"):
        raise LibraryCorpusError(f"{where}: inputs must name generator tcnum-irwin12-v1 and dist normal|wide")
    if not isinstance(inputs.get("seed"), int) or not isinstance(inputs.get("E", 0), int):
        raise LibraryCorpusError(f"{where}: inputs.seed and inputs.E must be integers")
    return call


def is_library_corpus(path) -> bool:
    """Whether the file's first line is a library corpus header (folders also hold other
    JSON-lines files, e.g. heuristic-variants/)."""
    path = os.fspath(path)
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            return json.loads(f.readline()).get("kind") == KIND
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        return False


def read_library_corpus(path) -> tuple[dict, list[dict]]:
    """(header, configuration lines) of one library corpus file (.jsonl or .jsonl.gz)."""
    path = os.fspath(path)
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            lines = [ln for ln in f if ln.strip()]
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise LibraryCorpusError(f"{path}: cannot read: {e}") from e
    if not lines:
        raise LibraryCorpusError(f"{path}: empty file (no header)")
    parsed = []
    for no, text in enumerate(lines, 1):
        try:
            parsed.append(json.loads(text, object_pairs_hook=_reject_duplicates))
        except (json.JSONDecodeError, LibraryCorpusError) as e:
            raise LibraryCorpusError(f"{path}:{no}: not a JSON object: {e}") from e
    header = parsed[0]
    if not isinstance(header, dict) or header.get("kind") != KIND or header.get("version") != 1:
        raise LibraryCorpusError(f"{path}:1: not a {KIND} version 1 header")
    return header, [check_call(c, f"{path}:{no}") for no, c in enumerate(parsed[1:], 2)]

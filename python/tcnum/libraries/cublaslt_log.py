"""cuBLASLt's own log, read in-process: which algorithm (and split count) a library call's
cublasLtMatmul ran. On the GPU host only (libcublasLt loaded by torch); the parsers are plain
text functions. Used by tcnum.libraries.live.plan_torch and the capture tools
(tools/libraries/capture_torch.py; docs/library-corpus.md §3, "cublaslt")."""

from __future__ import annotations

import ctypes
import os
import re


LOGGER_CB = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p)
LT_LOG_MASK = 1 | 2 | 4 | 8 | 16  # error, trace, hints, info, API trace (= CUBLASLT_LOG_LEVEL 5)
LT_KV = re.compile(r"(\w+)=((?:\[[^\]]*\])|(?:[^\s\]]+))")


def loaded_libraries(prefix):
    found = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                if os.path.basename(path).startswith(prefix) and path not in found:
                    found.append(path)
    except OSError:
        pass
    return found


class LtLogCapture:
    """cuBLASLt's logger routed into a Python list through cublasLtLoggerSetCallback. start()
    clears the list (and, with `toggle`, sets the mask); stop() returns the messages of the window
    (level, function, message) and switches the mask off again. Messages outside a window are
    dropped; the logger's own copy of every message goes to /dev/null (cublasLtLoggerSetFile)."""

    def __init__(self, toggle=True, warn=lambda msg: None):
        path = (loaded_libraries("libcublasLt.so") or ["libcublasLt.so"])[0]
        self.library = path
        self.lib = ctypes.CDLL(path)
        self.toggle = toggle
        self.on = False
        self.msgs = []
        self.total = 0
        self.outside = 0  # messages that arrived outside a window

        def cb(level, fn, msg):
            self.total += 1
            if self.on:
                self.msgs.append((int(level), (fn or b"").decode(errors="replace"),
                                  (msg or b"").decode(errors="replace")))
            else:
                self.outside += 1

        self._cb = LOGGER_CB(cb)  # keep a reference for the library's lifetime
        self.lib.cublasLtLoggerSetCallback.argtypes = [LOGGER_CB]
        st = self.lib.cublasLtLoggerSetCallback(self._cb)
        if st != 0:
            raise RuntimeError(f"cublasLtLoggerSetCallback: status {st}")
        self.file = "stdout"
        try:
            libc = ctypes.CDLL(None)
            libc.fopen.restype = ctypes.c_void_p
            libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
            self._devnull = libc.fopen(b"/dev/null", b"w")
            self.lib.cublasLtLoggerSetFile.argtypes = [ctypes.c_void_p]
            if self._devnull and self.lib.cublasLtLoggerSetFile(self._devnull) == 0:
                self.file = "/dev/null"
        except (OSError, AttributeError) as exc:
            warn(f"cublasLtLoggerSetFile unusable ({exc!r}): the log also goes to stdout")
        self.set_toggle(toggle)

    def _mask(self, mask):
        st = self.lib.cublasLtLoggerSetMask(ctypes.c_int(mask))
        if st != 0:
            raise RuntimeError(f"cublasLtLoggerSetMask({mask}): status {st}")

    def set_toggle(self, toggle):
        self.toggle = toggle
        self._mask(0 if toggle else LT_LOG_MASK)

    def start(self):
        self.msgs = []
        if self.toggle:
            self._mask(LT_LOG_MASK)
        self.on = True

    def stop(self):
        self.on = False
        if self.toggle:
            self._mask(0)
        msgs, self.msgs = self.msgs, []
        return msgs


def parse_lt_algo(fn, msg):
    """The algorithm of one logged matmul, from the "algo=[...]" of its message, or None."""
    m = re.search(r"algo=\[([^\]]*)\]", msg)
    if not m:
        return None
    kv = {}
    for k, v in LT_KV.findall(m.group(1)):
        kv.setdefault(k, int(v) if re.fullmatch(r"-?\d+", v) else v)
    out = {"function": fn, "algo_id": kv.get("algoId"), "tile": kv.get("tile"), "stages": kv.get("stages"),
           "reduction_scheme": kv.get("reductionScheme"), "num_splits_k": kv.get("numSplitsK", 1)}
    for src, dst in (("customOption", "custom_option"), ("clusterShape", "cluster_shape"),
                     ("ctaSwizzling", "cta_swizzling")):
        if src in kv:
            out[dst] = kv[src]
    ws = re.search(r"workSpaceSizeInBytes=(\d+)", msg)
    if ws:
        out["workspace_bytes"] = int(ws.group(1))
    out["raw"] = m.group(1)
    return out


def lt_algos(msgs):
    """The matmuls of one call's log, in order: every message of a function named *Matmul
    (cublasLtMatmul; cublasLtTSTMatmul where cuBLAS's own API called into cuBLASLt) that holds an
    "algo=[...]" (the trace message; the API-trace message of the same matmul has none)."""
    out = []
    for _level, fn, msg in msgs:
        if fn.endswith("Matmul"):
            a = parse_lt_algo(fn, msg)
            if a is not None:
                out.append(a)
    return out

#!/usr/bin/env python3
"""Which cuBLASLt heuristic query reproduces torch's algorithm choice (split-K count above all)?

Three modes.

Run (on the GPU host, from the repository root):

    python3 tools/libraries/heuristic_variants.py run corpora/h100-libraries/bias.jsonl.gz ... --out DIR >/dev/null

For every configuration line of the given library corpora (docs/library-corpus.md; meant for the
`bias` and `scaled_mm` families): (a) runs the torch call once with cuBLASLt's logger on (a ctypes
callback through cublasLtLoggerSetCallback / cublasLtLoggerSetMask: error, trace, hints, info and
API trace) and parses what it logged: the `cublasLtMatmul` that ran (its `algo=[...]`: algoId,
tile, splitK, reduction scheme, ...) and torch's own `cublasLtMatmulAlgoGetHeuristic` query and
descriptor/preference attributes; (b) asks cublasLtMatmulAlgoGetHeuristic itself under several
query variants (workspace size, epilogue, bias data type, alignment attributes, reduction-scheme
mask, compute type, C type, fast-accumulation and scale attributes, number of results asked for).
Operand values don't matter to the heuristic, so operands are plain torch.randn tensors laid out as
the line says (the caching allocator's pointers, as in the recording). Writes
DIR/heuristic-variants.jsonl.gz: one line per configuration {corpus, index, class, m, n, k,
logged: [algo of each cublasLtMatmul], log: {heuristic_msgs: torch's query as logged, ...},
variants: {name: {splitk, algo_id, tile_id, ...}}} and
DIR/log-sample.txt (the raw log of the first calls). Progress goes to stderr; the logger's own
copy of every message is sent to /dev/null where cublasLtLoggerSetFile allows, else to stdout.

    python3 tools/libraries/heuristic_variants.py envtest --out DIR

runs a small torch program twice, with the loggers switched on by environment variables alone
(CUBLASLT_LOG_LEVEL=5 + CUBLASLT_LOG_FILE; CUBLAS_LOGINFO_DBG=1 + CUBLAS_LOGDEST_DBG).

Compare (anywhere, standard library only):

    python3 tools/libraries/heuristic_variants.py compare DIR/heuristic-variants.jsonl.gz

joins the results with the plan tables python/tcnum/libraries/tables/h100-torch2.11-*.jsonl.gz
(the split_k that reproduced every recorded bit) and prints, per call class, how often the logged
split count and each variant's splitk_num equal the table's, and how often each variant's
(algo id, split count) equals the logged one (the ground truth).
"""

import argparse
import collections
import ctypes
import glob
import gzip
import importlib.util
import json
import os
import pathlib
import re
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
CAPTURE_PY = REPO / "tools" / "libraries" / "capture_torch.py"
TABLES = REPO / "python" / "tcnum" / "libraries" / "tables"
MiB = 1 << 20

torch = None
cap = None  # capture_torch, loaded by file path


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def corpus_label(path):
    """The plan tables' name of a corpus file: "h100-libraries/bias.jsonl.gz" for the seed-1
    files, "<subfolder>/<file>" for the others."""
    p = pathlib.Path(path)
    return f"{p.parent.name}/{p.name}"


def call_class(c):
    key = f"{c['call'].replace('torch.nn.functional.', '').replace('torch.', '')} {c['a']}x{c['b']}->{c['out']}"
    if c["flags"].get("allow_tf32"):
        key += " tf32"
    if c["flags"].get("use_fast_accum") is not None:
        key += " fast" if c["flags"]["use_fast_accum"] else " nofast"
    return key


# ------------------------------------------------------------------ cuBLASLt logger (ctypes)

LOGGER_CB = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p)


class LtLog:
    """cuBLASLt's logger routed into Python; messages kept only while `on`."""

    def __init__(self, lib):
        self.lib = lib
        self.on = False
        self.msgs = []
        self.total = 0

        def cb(level, fn, msg):
            self.total += 1
            if self.on:
                self.msgs.append((level, (fn or b"").decode(errors="replace"), (msg or b"").decode(errors="replace")))

        self._cb = LOGGER_CB(cb)  # keep a reference
        lib.cublasLtLoggerSetCallback.argtypes = [LOGGER_CB]
        st = lib.cublasLtLoggerSetCallback(self._cb)
        if st != 0:
            raise RuntimeError(f"cublasLtLoggerSetCallback: status {st}")
        st = lib.cublasLtLoggerSetMask(ctypes.c_int(1 | 2 | 4 | 8 | 16))
        if st != 0:
            raise RuntimeError(f"cublasLtLoggerSetMask: status {st}")
        # the logger also writes every message to its file (stdout by default: 300 MB for the
        # corpora): point it at /dev/null (cublasLtLoggerSetFile takes a FILE*)
        try:
            libc = ctypes.CDLL(None)
            libc.fopen.restype = ctypes.c_void_p
            libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
            self._devnull = libc.fopen(b"/dev/null", b"w")
            lib.cublasLtLoggerSetFile.argtypes = [ctypes.c_void_p]
            if self._devnull:
                lib.cublasLtLoggerSetFile(self._devnull)
        except (OSError, AttributeError) as exc:
            log(f"cublasLtLoggerSetFile unusable ({exc!r}): send stdout to /dev/null")

    def take(self):
        m, self.msgs = self.msgs, []
        return m


KV = re.compile(r"(\w+)=((?:\[[^\]]*\])|(?:[^\s\]]+))")


def parse_kv(text):
    out = {}
    for k, v in KV.findall(text):
        if k not in out:
            out[k] = v
    return out


def parse_algo(msg):
    m = re.search(r"algo=\[([^\]]*)\]", msg)
    if not m:
        return None
    a = parse_kv(m.group(1))
    res = {"raw": m.group(1)}
    for k, v in a.items():
        res[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
    ws = re.search(r"workSpaceSizeInBytes=(\d+)", msg)
    if ws:
        res["workspace_bytes"] = int(ws.group(1))
    return res


def summarize_log(msgs):
    """The matmuls that ran (their algo) and torch's heuristic query, from one call's log."""
    logged, heur, attrs, other = [], [], [], []
    for level, fn, msg in msgs:
        if fn in ("cublasLtMatmul", "cublasLtTSTMatmul"):  # TST: cuBLAS's own API calling into cuBLASLt
            a = parse_algo(msg)
            if a is not None and fn != "cublasLtMatmul":
                a["function"] = fn
            logged.append({"algo": a, "msg": msg[:3000]})
        elif fn in ("cublasLtMatmulAlgoGetHeuristic", "cublasLtTSTMatmulAlgoGetHeuristic"):
            heur.append(msg[:3000])
        elif "SetAttribute" in fn or "Create" in fn or "Init" in fn:
            attrs.append(f"{fn}: {msg[:400]}")
        else:
            other.append(f"[{level}] {fn}: {msg[:600]}")
    return {"logged": logged, "heuristic_msgs": heur, "attr_msgs": attrs[:80], "other_msgs": other[:40]}


# ------------------------------------------------------------------ heuristic query, extended

class LtQuery:
    """cublasLtMatmulAlgoGetHeuristic with every attribute optional (capture_torch.LtHeuristic's
    enums and handle)."""

    CUDA = {"f32": "CUDA_R_32F", "tf32": "CUDA_R_32F", "bf16": "CUDA_R_16BF", "f16": "CUDA_R_16F",
            "e4m3": "CUDA_R_8F_E4M3", "e5m2": "CUDA_R_8F_E5M2"}
    CONFIG = [("CUBLASLT_ALGO_CONFIG_ID", "algo_id"), ("CUBLASLT_ALGO_CONFIG_TILE_ID", "tile_id"),
              ("CUBLASLT_ALGO_CONFIG_SPLITK_NUM", "splitk"),
              ("CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME", "reduction_scheme"),
              ("CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING", "cta_swizzling"),
              ("CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION", "custom_option"),
              ("CUBLASLT_ALGO_CONFIG_STAGES_ID", "stages_id"),
              ("CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID", "inner_shape_id"),
              ("CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID", "cluster_shape_id")]

    def __init__(self, base):
        self.b = base
        self.lib = base.lib
        self.e = base.e

    def _set(self, fn, obj, attr, value, ctype):
        self.b._set(fn, obj, attr, value, ctype)

    def config(self, raw):
        algo = ctypes.create_string_buffer(raw[:64], 64)
        out = {}
        for attr, key in self.CONFIG:
            code = self.b.enums.get(attr, self.b.ALGO_CONFIG_DOCUMENTED[attr])
            size = ctypes.c_size_t(0)
            st = self.lib.cublasLtMatmulAlgoConfigGetAttribute(algo, code, None, 0, ctypes.byref(size))
            if st != 0 or size.value not in (1, 2, 4, 8):
                continue
            buf, written = (ctypes.c_char * 8)(), ctypes.c_size_t(0)
            if self.lib.cublasLtMatmulAlgoConfigGetAttribute(algo, code, buf, size.value, ctypes.byref(written)) == 0:
                out[key] = int.from_bytes(bytes(buf)[:size.value], "little", signed=(key == "algo_id"))
        return out

    def query(self, q):
        L = self.lib
        desc, pref = ctypes.c_void_p(), ctypes.c_void_p()
        layouts = []
        S = "cublasLtMatmulDescSetAttribute"
        try:
            self.b._ok(L.cublasLtMatmulDescCreate(ctypes.byref(desc), self.e(q["compute"]),
                                                  self.e(q.get("scale_type", "CUDA_R_32F"))), "DescCreate")
            self._set(S, desc, "CUBLASLT_MATMUL_DESC_TRANSA", self.e("CUBLAS_OP_" + q["transa"]), ctypes.c_int32)
            self._set(S, desc, "CUBLASLT_MATMUL_DESC_TRANSB", self.e("CUBLAS_OP_" + q["transb"]), ctypes.c_int32)
            if q.get("epilogue"):
                self._set(S, desc, "CUBLASLT_MATMUL_DESC_EPILOGUE", self.e(q["epilogue"]), ctypes.c_uint32)
            if q.get("bias_ptr"):
                self._set(S, desc, "CUBLASLT_MATMUL_DESC_BIAS_POINTER", q["bias_ptr"], ctypes.c_void_p)
            if q.get("bias_type"):
                self._set(S, desc, "CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE", self.e(self.CUDA[q["bias_type"]]),
                          ctypes.c_int32)
            if q.get("scale_a_ptr"):
                self._set(S, desc, "CUBLASLT_MATMUL_DESC_A_SCALE_POINTER", q["scale_a_ptr"], ctypes.c_void_p)
            if q.get("scale_b_ptr"):
                self._set(S, desc, "CUBLASLT_MATMUL_DESC_B_SCALE_POINTER", q["scale_b_ptr"], ctypes.c_void_p)
            if q.get("fast_accum") is not None:
                self._set(S, desc, "CUBLASLT_MATMUL_DESC_FAST_ACCUM", int(q["fast_accum"]), ctypes.c_int8)
            m, n, k = q["m"], q["n"], q["k"]
            shapes = {"a": (m, k) if q["transa"] == "N" else (k, m), "b": (k, n) if q["transb"] == "N" else (n, k),
                      "c": (m, n), "d": (m, n)}
            for which in ("a", "b", "c", "d"):
                rows, cols = shapes[which]
                lay = ctypes.c_void_p()
                self.b._ok(L.cublasLtMatrixLayoutCreate(ctypes.byref(lay), self.e(self.CUDA[q[which]]), rows, cols,
                                                        max(rows, 1)), "LayoutCreate")
                layouts.append(lay)
            self.b._ok(L.cublasLtMatmulPreferenceCreate(ctypes.byref(pref)), "PreferenceCreate")
            P = "cublasLtMatmulPreferenceSetAttribute"
            self._set(P, pref, "CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES", q["workspace"], ctypes.c_uint64)
            if q.get("reduction_mask") is not None:
                self._set(P, pref, "CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK", q["reduction_mask"], ctypes.c_uint32)
            for which, value in (q.get("align") or {}).items():
                self._set(P, pref, f"CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_{which.upper()}_BYTES", value, ctypes.c_uint32)
            req = q.get("requested", 1)
            size = 96
            results = (ctypes.c_char * (size * req + 160))()
            count = ctypes.c_int(0)
            st = L.cublasLtMatmulAlgoGetHeuristic(self.b.handle, desc, layouts[0], layouts[1], layouts[2],
                                                  layouts[3], pref, req, results, ctypes.byref(count))
            if st != 0:
                return {"status": st}
            raw = bytes(results)
            outs = []
            for i in range(count.value):
                r = raw[i * size:(i + 1) * size]
                o = self.config(r)
                o["workspace"] = int.from_bytes(r[64:72], "little")
                o["waves"] = round(ctypes.c_float.from_buffer_copy(r[76:80]).value, 4)
                outs.append(o)
            if not outs:
                return {"returned": 0}
            first = dict(outs[0])
            if req > 1:
                first["all"] = [[o.get("algo_id"), o.get("tile_id"), o.get("splitk"), o.get("reduction_scheme")]
                                for o in outs]
            return first
        finally:
            self.b.release(desc, pref, layouts)


def align_of(p):
    a = 256
    while a > 1 and p % a:
        a //= 2
    return a


def variants(cfg, lt, ptrs, scale_ptr):
    """name -> query dict. "torch" is torch 2.11's own query as its cuBLASLt log shows it
    (gemm_and_bias / scaled_gemm in CUDABlas.cpp): workspace = torch's cuBLASLt workspace
    (CUBLASLT_WORKSPACE_SIZE, default 1 MiB); gemm_and_bias: BIAS epilogue and bias pointer,
    MIN_ALIGNMENT A/B/C from the pointers and D from the bias pointer, and for bf16/f16 with
    allow_{bf16,fp16}_reduced_precision_reduction False the reduction-scheme mask
    CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE (none otherwise); scaled_gemm: no alignment attributes,
    FAST_ACCUM always (0/1), A/B scale pointers, C and D of the out dtype. "torch_nomask" is the
    same without the mask (the only variant of the first device run: there "torch" meant this).
    "rec" is capture_torch's recorded query (32 MiB)."""
    m, n, k = cfg["n"], cfg["m"], cfg["k"]
    transa = "N" if cfg["layout"]["b"] == "row" else "T"
    transb = "N" if cfg["layout"]["a"] == "row" else "T"
    tf32 = cfg["math"] == "tf32"
    compute = "CUBLAS_COMPUTE_32F_FAST_TF32" if tf32 else "CUBLAS_COMPUTE_32F"
    common = {"m": m, "n": n, "k": k, "transa": transa, "transb": transb, "a": cfg["b"], "b": cfg["a"],
              "c": cfg["out"], "d": cfg["out"], "compute": compute}
    al = {"a": align_of(ptrs["b"]), "b": align_of(ptrs["a"]), "c": align_of(ptrs["out"])}
    scaled = cfg["call"] == "torch._scaled_mm"
    reduced = (cfg["a"] == "bf16" and cfg["flags"]["allow_bf16_reduced_precision_reduction"]) or \
              (cfg["a"] == "f16" and cfg["flags"]["allow_fp16_reduced_precision_reduction"])
    mask_no_out = None
    if cfg["a"] in ("bf16", "f16") and cfg["out"] == cfg["a"] and not reduced:
        mask_no_out = lt.e("CUBLASLT_REDUCTION_SCHEME_MASK") & ~lt.e("CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE")
    V = {}
    # capture_torch's recorded query (32 MiB, 256 for C and D, BIAS, mask as recorded)
    rec = dict(common, workspace=32 * MiB, align=dict(al, c=256, d=256), reduction_mask=mask_no_out)
    if cfg["bias"]:
        rec.update(epilogue="CUBLASLT_EPILOGUE_BIAS", bias_ptr=ptrs["bias"])
    if scaled:
        rec.update(fast_accum=cfg["flags"]["use_fast_accum"], scale_a_ptr=scale_ptr, scale_b_ptr=scale_ptr)
    V["rec"] = rec
    if not scaled:
        t = dict(common, workspace=1 * MiB, align=dict(al, d=align_of(ptrs["bias"]) if cfg["bias"] else al["c"]))
        if cfg["bias"]:
            t.update(epilogue="CUBLASLT_EPILOGUE_BIAS", bias_ptr=ptrs["bias"])
    else:
        t = dict(common, workspace=1 * MiB, fast_accum=bool(cfg["flags"]["use_fast_accum"]), scale_a_ptr=scale_ptr,
                 scale_b_ptr=scale_ptr)
    V["torch_nomask"] = t
    if not scaled and cfg["a"] in ("bf16", "f16") and not reduced:
        t = dict(t, reduction_mask=lt.e("CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE"))
    V["torch"] = t
    for w in (0, 4 * MiB, 32 * MiB):
        V[f"torch_ws{w // MiB}M"] = dict(t, workspace=w)
    V["torch_req8"] = dict(t, requested=8)
    V["rec_ws1M"] = dict(rec, workspace=1 * MiB)
    V["rec_ws4M"] = dict(rec, workspace=4 * MiB)
    if mask_no_out is not None:
        V["torch_mask_no_output"] = dict(t, reduction_mask=mask_no_out)
    V["torch_align256"] = dict(t, align={"a": 256, "b": 256, "c": 256, "d": 256})
    if not scaled:
        V["torch_noalign"] = dict(t, align=None)
        if cfg["bias"]:
            V["torch_default_epi"] = {kk: vv for kk, vv in t.items() if kk not in ("epilogue", "bias_ptr")}
            V["torch_biastype"] = dict(t, bias_type=cfg["a"])
            V["rec_default_epi"] = {kk: vv for kk, vv in rec.items() if kk not in ("epilogue", "bias_ptr")}
        if tf32:
            V["torch_32F"] = dict(t, compute="CUBLAS_COMPUTE_32F")
    else:
        V["torch_align"] = dict(t, align=dict(al, d=al["c"]))
        V["torch_nofast"] = {kk: vv for kk, vv in t.items() if kk != "fast_accum"}
        V["torch_noscale"] = {kk: vv for kk, vv in t.items() if kk not in ("scale_a_ptr", "scale_b_ptr")}
        V["torch_c16f"] = dict(t, c="f16")
    return V


# ------------------------------------------------------------------ the torch call

def build(cfg):
    dt = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16, "e4m3": torch.float8_e4m3fn,
          "e5m2": torch.float8_e5m2}
    m, n, k = cfg["m"], cfg["n"], cfg["k"]

    def one(r, c, t, layout):
        x = torch.randn(r, c, device="cuda").to(dt[t])
        return x if layout == "row" else x.t().contiguous().t()

    a = one(m, k, cfg["a"], cfg["layout"]["a"])
    b = one(k, n, cfg["b"], cfg["layout"]["b"])
    bias = torch.randn(n, device="cuda").to(dt[cfg["a"]]) if cfg["bias"] else None
    return a, b, bias


def run_mode(args):
    global torch, cap
    import torch as _torch
    torch = _torch
    spec = importlib.util.spec_from_file_location("capture_torch", CAPTURE_PY)
    cap = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cap)
    cap.torch = torch
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    # load cuBLAS / cuBLASLt
    w = torch.ones(64, 64, device="cuda", dtype=torch.bfloat16)
    torch.addmm(w[0], w, w)
    f8 = w.to(torch.float8_e4m3fn)
    one = torch.ones((), device="cuda")
    torch._scaled_mm(f8, f8.t().contiguous().t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    torch.cuda.synchronize()
    base = cap.LtHeuristic()
    lq = LtQuery(base)
    lt_log = None
    try:
        lt_log = LtLog(base.lib)
    except Exception as exc:  # noqa: BLE001
        log(f"cuBLASLt logger callback unusable: {exc!r}")
    header = {"kind": "tcnum-heuristic-variants", "version": 1, "torch": torch.__version__,
              "gpu": torch.cuda.get_device_name(0), "cublasLt_library": base.library,
              "env": {k: os.environ.get(k) for k in ("CUBLASLT_WORKSPACE_SIZE", "CUBLAS_WORKSPACE_CONFIG",
                                                      "TORCH_CUBLASLT_UNIFIED_WORKSPACE", "DISABLE_ADDMM_CUDA_LT")},
              "preferred_blas_library": str(torch.backends.cuda.preferred_blas_library()),
              "logger": "callback" if lt_log else "off"}
    for fn in ("_cuda_getCUDABlasLtWorkspaceSize", "_cuda_get_cublas_workspace_size"):
        if hasattr(torch._C, fn):
            try:
                header[fn] = getattr(torch._C, fn)()
            except Exception as exc:  # noqa: BLE001
                header[fn] = repr(exc)
    scale = torch.ones((), dtype=torch.float32, device="cuda")
    t0 = time.perf_counter()
    n_done = 0
    per_class = collections.Counter()
    sample = open(out_dir / "log-sample.txt", "w")
    with gzip.open(out_dir / "heuristic-variants.jsonl.gz", "wt", encoding="utf-8") as fo:
        fo.write(json.dumps(header) + "\n")
        per_file = []
        for path in args.corpora:
            with gzip.open(path, "rt", encoding="utf-8") as f:
                next(f)
                lines = [json.loads(line) for line in f]
            per_file.append([(corpus_label(path), c) for c in lines[:args.limit or None]])
        # round-robin over the files, so that a time budget cuts every file alike
        order = [x for i in range(max(map(len, per_file), default=0)) for lf in per_file if i < len(lf)
                 for x in (lf[i],)]
        for label, cfg in order:
            if args.time_budget and time.perf_counter() - t0 > args.time_budget:
                log(f"time budget reached at {label} #{cfg['index']}")
                break
            rec = {"corpus": label, "index": cfg["index"], "class": call_class(cfg), "m": cfg["m"],
                   "n": cfg["n"], "k": cfg["k"], "layout": cfg["layout"],
                   "recorded_splitk": (cfg.get("heuristic") or {}).get("splitk_num")}
            try:
                cap.set_flags(cfg["flags"])
                a, b, bias = build(cfg)
                fn = cap.make_call(cfg, a, b, bias)
                out = fn()  # warm (allocations, the output pointer's place)
                torch.cuda.synchronize()
                if lt_log:
                    lt_log.take()
                    lt_log.on = True
                out = fn()
                torch.cuda.synchronize()
                if lt_log:
                    lt_log.on = False
                    msgs = lt_log.take()
                    s = summarize_log(msgs)
                    rec["logged"] = [x["algo"] for x in s["logged"]]
                    per_class[rec["class"]] += 1
                    if per_class[rec["class"]] > args.full_logs:  # keep the whole log of a few per class
                        s = {"logged": s["logged"], "heuristic_msgs": s["heuristic_msgs"]}
                    rec["log"] = s
                    if n_done < args.sample_calls:
                        sample.write(f"===== {label} #{cfg['index']} {rec['class']} {cfg['m']}x{cfg['n']}x{cfg['k']}\n")
                        for lv, fnn, msg in msgs:
                            sample.write(f"[{lv}] {fnn}: {msg}\n")
                ptrs = {"a": a.data_ptr(), "b": b.data_ptr(), "out": out.data_ptr(),
                        "bias": bias.data_ptr() if bias is not None else 0}
                rec["align"] = {kk: align_of(v) for kk, v in ptrs.items() if v}
                rec["variants"] = {}
                for name, q in variants(cfg, base, ptrs, scale.data_ptr()).items():
                    try:
                        rec["variants"][name] = lq.query(q)
                    except Exception as exc:  # noqa: BLE001
                        rec["variants"][name] = {"error": f"{exc.__class__.__name__}: {exc}"}
                del a, b, bias, out
            except Exception as exc:  # noqa: BLE001
                rec["error"] = f"{exc.__class__.__name__}: {exc}"
                if lt_log:
                    lt_log.on = False
                    lt_log.take()
            fo.write(json.dumps(rec, separators=(",", ":")) + "\n")
            n_done += 1
            if n_done % 200 == 0:
                log(f"{n_done} calls, {time.perf_counter() - t0:.1f} s")
    sample.close()
    log(f"done: {n_done} calls in {time.perf_counter() - t0:.1f} s; logger messages seen: "
        f"{lt_log.total if lt_log else 0}")
    return 0


# ------------------------------------------------------------------ compare with the plan tables

def load_tables():
    tab = {}
    for p in sorted(glob.glob(str(TABLES / "h100-torch2.11-*.jsonl.gz"))):
        with gzip.open(p, "rt", encoding="utf-8") as f:
            next(f)
            for line in f:
                e = json.loads(line)
                tab[(e["corpus"], e["index"])] = e
    return tab


def logged_split(rec):
    """numSplitsK of the last cublasLtMatmul that ran (1 where its algo names none; -1 is
    cuBLASLt's own "auto", seen with algo 43); None if none was logged."""
    algos = [a for a in rec.get("logged") or [] if a]
    if not algos:
        return None
    a = algos[-1]
    for key in ("numSplitsK", "splitK", "splitKNum", "splitk"):
        if key in a:
            return int(a[key])
    return 1


def variant_split(q):
    s = (q or {}).get("splitk")
    return -1 if s == 0xFFFFFFFF else s


def group_of(r):
    """Call class, bias calls split by whether torch set the reduction-scheme mask."""
    masked = any("reductionSchemeMask" in m for m in (r.get("log") or {}).get("heuristic_msgs", []))
    return r["class"] + (" (mask)" if masked else "")


def print_table(title, stats, cols):
    print(f"\n== {title}")
    print("class".ljust(40) + "n".rjust(6) + "".join(c[-12:].rjust(13) for c in cols))
    for cls in sorted(stats, key=lambda c: (c == "ALL", c)):
        st = stats[cls]
        cells = []
        for c in cols:
            n = st.get(c + "/n", 0)
            cells.append((f"{st[c]}/{n}" if n != st["n"] else str(st[c])) if n else "-")
        print(cls[:40].ljust(40) + str(st["n"]).rjust(6) + "".join(x.rjust(13) for x in cells))


def compare_mode(args):
    """Counts, per class: (1) the plan tables' split_k (entries with a plan) against the recorded
    32 MiB heuristic, the logged split and each variant; (2) the logged cublasLtMatmul (the ground
    truth: algo id and split count) against each variant."""
    tab = load_tables()
    recs = []
    for p in args.results:
        with gzip.open(p, "rt", encoding="utf-8") as f:
            next(f)
            recs += [json.loads(line) for line in f]
    names = []
    for r in recs:
        for v in r.get("variants", {}):
            if v not in names:
                names.append(v)
    for subset in ("all", "split"):
        stats = collections.defaultdict(collections.Counter)
        for r in recs:
            e = tab.get((r["corpus"], r["index"]))
            if e is None or e.get("plan") is None or "error" in r:
                continue
            want = e["plan"]["schedule"]["split_k"]
            if subset == "split":
                if want <= 1 and not any("splitK" in kn or "Memset" in kn for kn in e.get("kernels", [])):
                    continue
            for key in (r["class"], "ALL"):
                st = stats[key]
                st["n"] += 1
                st["recorded"] += r.get("recorded_splitk") == want
                st["recorded/n"] += 1
                ls = logged_split(r)
                st["logged/n"] += ls is not None
                st["logged"] += ls == want
                for v in names:
                    if v in r.get("variants", {}):
                        st[v + "/n"] += 1
                        st[v] += variant_split(r["variants"][v]) == want
        print_table(f"plan tables' split_k ({subset}: entries with a plan"
                    f"{', split_k > 1 or a split-K / Memset kernel' if subset == 'split' else ''})",
                    stats, ["recorded", "logged"] + names)
    stats = collections.defaultdict(collections.Counter)
    for r in recs:
        ls = logged_split(r)
        if ls is None or "error" in r:
            continue
        algo = [a for a in r["logged"] if a][-1].get("algoId")
        for key in (group_of(r), "ALL"):
            st = stats[key]
            st["n"] += 1
            for v in names:
                if v in r.get("variants", {}):
                    q = r["variants"][v]
                    st[v + "/n"] += 1
                    st[v] += variant_split(q) == ls and q.get("algo_id") == algo
    print_table("logged cublasLtMatmul (algo id and split count) vs each variant", stats, names)
    if args.mismatches:
        shown = 0
        for r in recs:
            e = tab.get((r["corpus"], r["index"]))
            if e is None or e.get("plan") is None or "error" in r:
                continue
            want, ls = e["plan"]["schedule"]["split_k"], logged_split(r)
            if ls != want:
                lg = ([a for a in r.get("logged") or [] if a] or [{}])[-1]
                algo = " ".join(f"{k}={v}" for k, v in lg.items() if k not in ("raw", "workspace_bytes"))
                print(r["corpus"], r["index"], r["class"], f"{r['m']}x{r['n']}x{r['k']}", "table", want,
                      e.get("source"), "logged", ls, f"[{algo}]", "| kernels:", " ".join(k[:50] for k in e["kernels"]))
                shown += 1
                if shown >= args.mismatches:
                    break
    return 0


ENV_CODE = r"""
import torch
torch.backends.cuda.matmul.allow_tf32 = True
x = torch.randn(250, 17691, device="cuda"); w = torch.randn(283, 17691, device="cuda"); b = torch.randn(283, device="cuda")
torch.nn.functional.linear(x, w, b)                                   # seed-1 bias #8 (tf32)
a = torch.randn(1024, 4096, device="cuda").to(torch.float8_e4m3fn)
bb = torch.randn(4096, 4096, device="cuda").to(torch.float8_e4m3fn).t()
one = torch.ones((), device="cuda")
torch._scaled_mm(a, bb, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=True)
h = torch.randn(1000, 3001, device="cuda", dtype=torch.bfloat16); g = torch.randn(3001, 999, device="cuda", dtype=torch.bfloat16)
torch.mm(h, g)                                                        # no bias: cuBLAS's own API
torch.cuda.synchronize()
"""


def envtest_mode(args):
    """The library loggers switched on by environment variables alone, one small torch program
    each: cuBLASLt (CUBLASLT_LOG_LEVEL=5, CUBLASLT_LOG_FILE) and cuBLAS (CUBLAS_LOGINFO_DBG=1,
    CUBLAS_LOGDEST_DBG). Each log is cut to --max-bytes."""
    import subprocess
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = {"envlog-cublaslt.txt": {"CUBLASLT_LOG_LEVEL": "5", "CUBLASLT_LOG_FILE": str(out / "envlog-cublaslt.txt")},
            "envlog-cublas.txt": {"CUBLAS_LOGINFO_DBG": "1", "CUBLAS_LOGDEST_DBG": str(out / "envlog-cublas.txt")}}
    for name, env in runs.items():
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-c", ENV_CODE], env=dict(os.environ, **env), capture_output=True,
                           text=True, timeout=120)
        p = out / name
        size = p.stat().st_size if p.exists() else None
        log(f"{name}: rc {r.returncode}, {size} bytes, {time.perf_counter() - t0:.1f} s; stderr tail: "
            f"{r.stderr[-600:]!r}")
        if p.exists() and size > args.max_bytes:
            data = p.read_bytes()
            p.write_bytes(data[:args.max_bytes // 2] + b"\n...[cut]...\n" + data[-args.max_bytes // 2:])
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("run", help="on the GPU host: log torch's calls and query the variants")
    r.add_argument("corpora", nargs="+", help="library corpus files (.jsonl.gz)")
    r.add_argument("--out", required=True, help="output folder")
    r.add_argument("--limit", type=int, default=0, help="at most this many lines per file (0: all)")
    r.add_argument("--time-budget", type=float, default=0, help="stop after this many seconds (0: none)")
    r.add_argument("--full-logs", type=int, default=4, help="calls per class whose log is kept whole")
    r.add_argument("--sample-calls", type=int, default=6, help="calls whose whole log goes to log-sample.txt")
    e = sub.add_parser("envtest", help="on the GPU host: the loggers switched on by environment variables")
    e.add_argument("--out", required=True, help="output folder")
    e.add_argument("--max-bytes", type=int, default=400000, help="cut each log to this size")
    c = sub.add_parser("compare", help="join results with the plan tables and count matches")
    c.add_argument("results", nargs="+", help="heuristic-variants.jsonl.gz files")
    c.add_argument("--mismatches", type=int, default=0, help="print up to this many mismatching entries")
    args = ap.parse_args(argv)
    return {"run": run_mode, "envtest": envtest_mode, "compare": compare_mode}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Record what torch's library GEMM calls return on this GPU: the "library corpus"
(docs/library-corpus.md), replayed later on the CPU through tcnum's GEMM schedules.

Example (on the GPU host, from the repository root):

    python3 tools/libraries/capture_torch.py --out /tmp/corpus --configs 600 --seed 1

For each configuration (a pure function of --seed and its index): a library call (torch.mm with
out_dtype=float32, torch.mm/matmul in bf16/f16, tf32, addmm/linear with a bias, bmm,
_scaled_mm in fp8), its flags, dtypes, shape, layout and input distribution. The inputs come
from the counter-based generator "tcnum-irwin12-v1" (python/tcnum/libraries/inputs.py, loaded by
file path; here computed on the GPU and checked against its numpy code first). The call runs
once under torch.profiler (the kernels it launched) and once more (are the two outputs bitwise
equal?); an 8 x 8 sample of the output is stored as raw bits. One gzipped JSON-lines file per
call family: DIR/<family>.jsonl.gz, its first line the header (device, versions, command).
An existing output file is never overwritten (exit 2).

Grid mode (--grid pow2|llm) enumerates instead of sampling: seven call classes (grid_configs,
GRID_CLASSES) x every shape of the grid (pow2: M, N in {16 .. 4096}, K in {16 .. 16384}; llm:
the LLM_NK layers x M in {1 .. 4096}), inputs "normal", plus "wide" for every fourth grid point;
shapes over the work cap are skipped (nothing recorded). --list prints the configurations
without torch.

cuBLASLt's own log (on unless --no-cublaslt-log): cuBLASLt's logger is routed into Python
(cublasLtLoggerSetCallback; mask 31, i.e. up to API trace, switched on for the profiled call only);
each line's "cublaslt" lists the algorithm of every cublasLtMatmul (also cuBLAS's own API calling
into cuBLASLt: cublasLtTSTMatmul) that the profiled call ran, parsed from the "algo=[...]" of its
trace message: algo id, tile, stages, reduction scheme, numSplitsK (the split count the GPU used).
A self-test before any file is written checks that a cuBLAS-API call (torch.mm) and a cuBLASLt
call (torch.addmm) are both logged; if not, the mask is left on, and as a last resort the script
re-executes itself with CUBLASLT_LOG_LEVEL=5 CUBLASLT_LOG_FILE=/dev/null.
"""

import argparse
import ctypes
import datetime
import glob
import gzip
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import random
import re
import shlex
import subprocess
import sys
import time
import warnings

REPO = pathlib.Path(__file__).resolve().parents[2]
INPUTS_PY = REPO / "python" / "tcnum" / "libraries" / "inputs.py"
CUBLASLT_LOG_PY = REPO / "python" / "tcnum" / "libraries" / "cublaslt_log.py"
FAMILIES = ["mm_f32out", "mm_half", "tf32", "bias", "bmm", "scaled_mm"]
FAMILY_WEIGHTS = {"mm_f32out": 18, "mm_half": 20, "tf32": 12, "bias": 14, "bmm": 12, "scaled_mm": 24}
SHAPE_WEIGHTS = {"random": 50, "skinny": 15, "longk": 15, "pow2": 10, "llm": 10}
# Common LLM layers as (N, K): attention projections, MLP up/gate/down, GQA key/value.
LLM_NK = [(4096, 4096), (11008, 4096), (4096, 11008), (14336, 4096), (4096, 14336), (12288, 4096),
          (1024, 4096), (5120, 5120), (13824, 5120), (5120, 13824), (8192, 8192), (28672, 8192),
          (8192, 28672), (2048, 2048), (5632, 2048), (3072, 3072), (8192, 3072)]
LLM_M = [1, 2, 8, 16, 64, 128, 512, 1024, 2048, 4096]
MAX_WORK = 1 << 36  # batch * M * N * K per call

torch = None  # imported in main(), so that --help works without torch


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def load_by_path(name, path):
    """A module of the package by file path: this script runs without tcnum built or installed."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_inputs_module():
    return load_by_path("tcnum_library_inputs", INPUTS_PY)


# cuBLASLt's log (the algo that ran): python/tcnum/libraries/cublaslt_log.py
LTLOG = load_by_path("tcnum_cublaslt_log", CUBLASLT_LOG_PY)
LOGGER_CB, LT_LOG_MASK, LT_KV = LTLOG.LOGGER_CB, LTLOG.LT_LOG_MASK, LTLOG.LT_KV
loaded_libraries, parse_lt_algo, lt_algos = LTLOG.loaded_libraries, LTLOG.parse_lt_algo, LTLOG.lt_algos
LT_LOG_REEXEC = "TCNUM_CAPTURE_CUBLASLT_ENV"  # set in the environment of a re-executed run


# ------------------------------------------------------------------ the generator on the GPU

CUDA_SRC = r"""
__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
extern "C" __global__ void irwin12(float* out, unsigned long long base, unsigned long long n, int E) {
    const unsigned long long G = 0x9E3779B97F4A7C15ull;
    for (unsigned long long e = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; e < n;
         e += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned long long s = 0;
        for (int d = 0; d < 3; ++d) {
            unsigned long long z = mix64(base + (4ull * e + d + 1) * G);
            s += (z & 0xFFFFull) + ((z >> 16) & 0xFFFFull) + ((z >> 32) & 0xFFFFull) + (z >> 48);
        }
        float x = (float)((long long)s - 393210LL) * (1.0f / 65536.0f);
        if (E > 0) {
            unsigned long long z = mix64(base + (4ull * e + 4) * G);
            int t = (int)(z % (unsigned long long)(2 * E + 1)) - E;
            x = x * __int_as_float((127 + t) << 23);
        }
        out[e] = x;
    }
}
"""


class GpuGenerator:
    """values(seed, id, rows, cols, dist, E) -> float32 CUDA tensor (rows x cols), bit-identical to
    inputs.values(). Backend "cupy" (a raw CUDA kernel on uint64) or "torch" (int64 tensors with
    masked logical shifts; wrap-around multiplication)."""

    def __init__(self, inputs, backend="auto"):
        self.inputs = inputs
        self.backend = backend
        self.kernel = None
        if backend in ("auto", "cupy"):
            try:
                import cupy
                self.cupy = cupy
                self.kernel = cupy.RawKernel(CUDA_SRC, "irwin12")
                self.backend = "cupy"
            except Exception as exc:  # noqa: BLE001
                if backend == "cupy":
                    raise
                log(f"CuPy unusable ({exc!r}); using the torch generator")
                self.backend = "torch"

    def values(self, seed, operand_id, rows, cols, dist="normal", E=0):
        E = E if dist == "wide" else 0
        base = self.inputs.base_reference(seed, operand_id)
        n = rows * cols
        out = torch.empty(n, dtype=torch.float32, device="cuda")
        if n == 0:
            return out.view(rows, cols)
        if self.backend == "cupy":
            import numpy as np
            arr = self.cupy.asarray(out)
            threads = 256
            blocks = min((n + threads - 1) // threads, 132 * 64)
            torch.cuda.synchronize()
            self.kernel((blocks,), (threads,), (arr, np.uint64(base), np.uint64(n), np.int32(E)))
            self.cupy.cuda.get_current_stream().synchronize()
        else:
            self._torch_values(out, base, n, E)
        return out.view(rows, cols)

    @staticmethod
    def _s64(c):
        c &= (1 << 64) - 1
        return c - (1 << 64) if c >= 1 << 63 else c

    def _lsr(self, z, s):
        return (z >> s) & ((1 << (64 - s)) - 1)

    def _mix(self, z):
        z = (z ^ self._lsr(z, 30)) * self._s64(0xBF58476D1CE4E5B9)
        z = (z ^ self._lsr(z, 27)) * self._s64(0x94D049BB133111EB)
        return z ^ self._lsr(z, 31)

    def _torch_values(self, out, base, n, E):
        G = self._s64(0x9E3779B97F4A7C15)
        b = self._s64(base)
        step = 1 << 23
        for e0 in range(0, n, step):
            e = torch.arange(e0, min(n, e0 + step), dtype=torch.int64, device="cuda")
            s = torch.zeros_like(e)
            for d in range(3):
                z = self._mix(b + (4 * e + (d + 1)) * G)
                s += (z & 0xFFFF) + ((z >> 16) & 0xFFFF) + ((z >> 32) & 0xFFFF) + ((z >> 48) & 0xFFFF)
            x = (s - 393210).to(torch.float32) * (1.0 / 65536.0)
            if E > 0:
                z = self._mix(b + (4 * e + 4) * G)
                m = 2 * E + 1
                r = ((((z >> 32) & 0xFFFFFFFF) % m) * ((1 << 32) % m) + (z & 0xFFFFFFFF) % m) % m
                x = x * ((r - E + 127) << 23).to(torch.int32).view(torch.float32)  # exact 2**t
            out[e0:e0 + e.numel()] = x


TORCH_DTYPES = {}


def torch_dtype(name):
    if not TORCH_DTYPES:
        TORCH_DTYPES.update({"f32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16,
                             "f16": torch.float16, "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2})
    return TORCH_DTYPES[name]


def check_generator(gen, inputs):
    """GPU values == numpy values (and torch's rounding == ml_dtypes'), or exit 3."""
    import numpy as np
    rng = random.Random(12345)
    report = {"backend": gen.backend, "elements": 0, "mismatches": 0}
    # big matrix: time it, then compare a random 64 x 64 subset
    for dist, E in (("normal", 0), ("wide", 16)):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        big = gen.values(99, 1, 4096, 8192, dist, E)
        torch.cuda.synchronize()
        report[f"gpu_ms_4096x8192_{dist}"] = round((time.perf_counter() - t0) * 1e3, 2)
        rows = sorted(rng.sample(range(4096), 64)) + [0, 4095]
        cols = sorted(rng.sample(range(8192), 64)) + [0, 8191]
        want = inputs.values(99, 1, 4096, 8192, dist, E, row_idx=rows, col_idx=cols)
        got = big[rows][:, cols].cpu().numpy()
        report["elements"] += want.size
        report["mismatches"] += int((got.view(np.uint32) != want.view(np.uint32)).sum())
        del big
    # full small matrices, every operand id, odd shapes; then torch's rounding to each operand
    # type against ml_dtypes' (round to nearest even), on "wide" values with that type's E
    for seed, op, r, c, dist, E in ((1, 1, 257, 1031, "normal", 0), (2**64 - 1, 2, 300, 77, "wide", 4),
                                    (123456789, 3, 1, 4099, "wide", 8), (5, 2, 33, 65, "wide", 16)):
        want = inputs.values(seed, op, r, c, dist, E)
        got = gen.values(seed, op, r, c, dist, E)
        report["elements"] += want.size
        report["mismatches"] += int((got.cpu().numpy().view(np.uint32) != want.view(np.uint32)).sum())
        for name in ("bf16", "f16", "e4m3", "e5m2"):
            x = inputs.values(seed, op, r, c, "wide", inputs.WIDE_E[name])
            w = inputs.to_dtype(x, name)
            g = gen.values(seed, op, r, c, "wide", inputs.WIDE_E[name]).to(torch_dtype(name)).cpu()
            gi = g.view(torch.uint8 if g.element_size() == 1 else torch.int16).numpy()
            wi = w.view(np.uint8 if w.dtype.itemsize == 1 else np.int16)
            report["elements"] += wi.size
            key = f"mismatches_{name}"
            report[key] = report.get(key, 0) + int((gi != wi).sum())
    bad = report["mismatches"] + sum(v for k, v in report.items() if k.startswith("mismatches_"))
    report["ok"] = bad == 0
    return report


# ------------------------------------------------------------------ device and versions

def device_info():
    props = torch.cuda.get_device_properties(0)
    cap = torch.cuda.get_device_capability(0)
    info = {"gpu": torch.cuda.get_device_name(0), "sm": f"sm_{cap[0]}{cap[1]}",
            "multiprocessors": props.multi_processor_count, "cuda_torch_built": torch.version.cuda}
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        info["driver"] = out.stdout.strip().splitlines()[0]
    except Exception as exc:  # noqa: BLE001
        info["driver"] = f"unknown ({exc.__class__.__name__})"
    for lib, fn, key in (("libcuda.so.1", "cuDriverGetVersion", "cuda_driver_api"),):
        try:
            v = ctypes.c_int()
            getattr(ctypes.CDLL(lib), fn)(ctypes.byref(v))
            info[key] = f"{v.value // 1000}.{v.value % 1000 // 10}"
        except Exception:  # noqa: BLE001
            pass
    for pat, key in (("libcudart.so", "cuda_runtime"),):
        for path in loaded_libraries(pat):
            try:
                v = ctypes.c_int()
                ctypes.CDLL(path).cudaRuntimeGetVersion(ctypes.byref(v))
                info[key] = f"{v.value // 1000}.{v.value % 1000 // 10}"
                info[key + "_library"] = path
            except Exception:  # noqa: BLE001
                pass
    for pat, prefix, key in (("libcublasLt.so", "cublasLt", "cublasLt"), ("libcublas.so", "cublas", "cublas")):
        for path in loaded_libraries(pat):
            try:
                lib = ctypes.CDLL(path)
                parts = []
                for prop in (0, 1, 2):
                    v = ctypes.c_int()
                    getattr(lib, prefix + "GetProperty")(prop, ctypes.byref(v))
                    parts.append(str(v.value))
                info[key] = ".".join(parts)
                info[key + "_library"] = path
            except Exception as exc:  # noqa: BLE001
                info[key] = f"unknown ({exc!r})"
    versions = {"torch": torch.__version__, "python": sys.version.split()[0]}
    for pkg in ("triton", "jax", "jaxlib", "cupy-cuda13x", "cupy-cuda12x", "numpy", "ml_dtypes"):
        try:
            versions[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            pass
    info["versions"] = versions
    return info





# ------------------------------------------------------------------ cuBLASLt's heuristic (optional)

class LtHeuristic:
    """cublasLtMatmulAlgoGetHeuristic for a cublasLtMatmul equivalent to the torch call, through
    ctypes. Enum values are read from the CUDA toolkit's headers (cublasLt.h, cublas_api.h,
    library_types.h), never guessed; without them this is off."""

    # cublasLtMatmulAlgoConfigAttributes_t as documented, used only where the header lacks a name
    ALGO_CONFIG_DOCUMENTED = {"CUBLASLT_ALGO_CONFIG_ID": 0, "CUBLASLT_ALGO_CONFIG_TILE_ID": 1,
                              "CUBLASLT_ALGO_CONFIG_SPLITK_NUM": 2, "CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME": 3,
                              "CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING": 4, "CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION": 5,
                              "CUBLASLT_ALGO_CONFIG_STAGES_ID": 6, "CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID": 7,
                              "CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID": 8}

    def __init__(self):
        self.enums = self._read_headers()
        path = (loaded_libraries("libcublasLt.so") or ["libcublasLt.so"])[0]
        self.lib = ctypes.CDLL(path)
        self.handle = ctypes.c_void_p()
        self._ok(self.lib.cublasLtCreate(ctypes.byref(self.handle)), "cublasLtCreate")
        self.lib.cublasLtMatrixLayoutCreate.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64,
                                                        ctypes.c_uint64, ctypes.c_int64]
        self.lib.cublasLtMatmulDescCreate.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        for fn in ("cublasLtMatmulDescSetAttribute", "cublasLtMatrixLayoutSetAttribute",
                   "cublasLtMatmulPreferenceSetAttribute"):
            getattr(self.lib, fn).argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
        self.lib.cublasLtMatmulAlgoGetHeuristic.argtypes = [ctypes.c_void_p] * 7 + [
            ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        self.lib.cublasLtMatmulAlgoConfigGetAttribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                                                  ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]
        self.library = path

    @staticmethod
    def _header_dirs():
        dirs = [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"] + sorted(glob.glob("/usr/local/cuda-*"))
        found = [os.path.join(d, sub) for d in dirs if d for sub in ("include", "targets/x86_64-linux/include")]
        for sp in sys.path:
            found += glob.glob(os.path.join(sp, "nvidia", "*", "include")) + glob.glob(os.path.join(sp, "nvidia", "*", "*", "include"))
        return [d for d in found if os.path.isfile(os.path.join(d, "cublasLt.h"))]

    def _read_headers(self):
        dirs = self._header_dirs()
        if not dirs:
            raise RuntimeError("no cublasLt.h found (CUDA_HOME, /usr/local/cuda*, site-packages/nvidia)")
        enums = {}
        for name in ("library_types.h", "cublas_api.h", "cublasLt.h"):
            for d in dirs:
                p = os.path.join(d, name)
                if os.path.isfile(p):
                    enums.update(parse_c_enums(open(p, encoding="utf-8", errors="replace").read()))
                    break
        self.header_dir = dirs[0]
        return enums

    def e(self, name):
        if name not in self.enums:
            raise KeyError(f"{name} not in the CUDA headers read")
        return self.enums[name]

    def _ok(self, status, what):
        if status != 0:
            raise RuntimeError(f"{what} returned cublasStatus {status}")

    def _set(self, fn, obj, attr, value, ctype):
        v = ctype(value)
        self._ok(getattr(self.lib, fn)(obj, self.e(attr), ctypes.byref(v), ctypes.sizeof(v)), f"{fn}({attr})")

    def query(self, q):
        """q: dict with m, n, k (column-major, cuBLAS's view), transa, transb, types a/b/c/d, compute,
        batch, strides, epilogue, fast_accum, scale pointers, reduction_mask, workspace, alignments."""
        L = self.lib
        CUDA = {"f32": "CUDA_R_32F", "tf32": "CUDA_R_32F", "bf16": "CUDA_R_16BF", "f16": "CUDA_R_16F",
                "e4m3": "CUDA_R_8F_E4M3", "e5m2": "CUDA_R_8F_E5M2"}
        desc, pref = ctypes.c_void_p(), ctypes.c_void_p()
        layouts = []
        try:
            self._ok(L.cublasLtMatmulDescCreate(ctypes.byref(desc), self.e(q["compute"]), self.e("CUDA_R_32F")),
                     "cublasLtMatmulDescCreate")
            self._set("cublasLtMatmulDescSetAttribute", desc, "CUBLASLT_MATMUL_DESC_TRANSA",
                      self.e("CUBLAS_OP_T" if q["transa"] == "T" else "CUBLAS_OP_N"), ctypes.c_int32)
            self._set("cublasLtMatmulDescSetAttribute", desc, "CUBLASLT_MATMUL_DESC_TRANSB",
                      self.e("CUBLAS_OP_T" if q["transb"] == "T" else "CUBLAS_OP_N"), ctypes.c_int32)
            if q.get("epilogue"):
                self._set("cublasLtMatmulDescSetAttribute", desc, "CUBLASLT_MATMUL_DESC_EPILOGUE",
                          self.e(q["epilogue"]), ctypes.c_uint32)
                self._set("cublasLtMatmulDescSetAttribute", desc, "CUBLASLT_MATMUL_DESC_BIAS_POINTER",
                          q["bias_ptr"], ctypes.c_void_p)
            if q.get("scale_a_ptr"):
                self._set("cublasLtMatmulDescSetAttribute", desc, "CUBLASLT_MATMUL_DESC_A_SCALE_POINTER",
                          q["scale_a_ptr"], ctypes.c_void_p)
                self._set("cublasLtMatmulDescSetAttribute", desc, "CUBLASLT_MATMUL_DESC_B_SCALE_POINTER",
                          q["scale_b_ptr"], ctypes.c_void_p)
            if q.get("fast_accum") is not None:
                self._set("cublasLtMatmulDescSetAttribute", desc, "CUBLASLT_MATMUL_DESC_FAST_ACCUM",
                          int(q["fast_accum"]), ctypes.c_int8)
            m, n, k = q["m"], q["n"], q["k"]
            shapes = {"a": (m, k) if q["transa"] == "N" else (k, m), "b": (k, n) if q["transb"] == "N" else (n, k),
                      "c": (m, n), "d": (m, n)}
            for which in ("a", "b", "c", "d"):
                rows, cols = shapes[which]
                lay = ctypes.c_void_p()
                self._ok(L.cublasLtMatrixLayoutCreate(ctypes.byref(lay), self.e(CUDA[q[which]]), rows, cols, rows),
                         "cublasLtMatrixLayoutCreate")
                layouts.append(lay)
                if q.get("batch", 1) > 1:
                    self._set("cublasLtMatrixLayoutSetAttribute", lay, "CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT",
                              q["batch"], ctypes.c_int32)
                    self._set("cublasLtMatrixLayoutSetAttribute", lay, "CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET",
                              rows * cols, ctypes.c_int64)
            self._ok(L.cublasLtMatmulPreferenceCreate(ctypes.byref(pref)), "cublasLtMatmulPreferenceCreate")
            self._set("cublasLtMatmulPreferenceSetAttribute", pref, "CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES",
                      q["workspace"], ctypes.c_uint64)
            if q.get("reduction_mask") is not None:
                self._set("cublasLtMatmulPreferenceSetAttribute", pref, "CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK",
                          q["reduction_mask"], ctypes.c_uint32)
            for which, attr in (("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")):
                self._set("cublasLtMatmulPreferenceSetAttribute", pref,
                          f"CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_{attr}_BYTES", q["align"][which], ctypes.c_uint32)
            results = (ctypes.c_char * 256)()  # room for one cublasLtMatmulHeuristicResult_t (96 bytes)
            count = ctypes.c_int(0)
            self._ok(L.cublasLtMatmulAlgoGetHeuristic(self.handle, desc, layouts[0], layouts[1], layouts[2],
                                                      layouts[3], pref, 1, results, ctypes.byref(count)),
                     "cublasLtMatmulAlgoGetHeuristic")
            if count.value < 1:
                return {"returned": 0}
            raw = bytes(results)
            out = {"returned": count.value}
            out["workspace"] = int.from_bytes(raw[64:72], "little")
            out["state"] = int.from_bytes(raw[72:76], "little", signed=True)
            out["waves"] = round(ctypes.c_float.from_buffer_copy(raw[76:80]).value, 4)
            algo = ctypes.create_string_buffer(raw[:64], 64)
            out["algo_data"] = raw[:64].hex()
            problems = []
            for attr, key in (("CUBLASLT_ALGO_CONFIG_ID", "algo_id"), ("CUBLASLT_ALGO_CONFIG_TILE_ID", "tile_id"),
                              ("CUBLASLT_ALGO_CONFIG_SPLITK_NUM", "splitk_num"),
                              ("CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME", "reduction_scheme"),
                              ("CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING", "cta_swizzling"),
                              ("CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION", "custom_option"),
                              ("CUBLASLT_ALGO_CONFIG_STAGES_ID", "stages_id"),
                              ("CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID", "inner_shape_id"),
                              ("CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID", "cluster_shape_id")):
                code = self.enums.get(attr, self.ALGO_CONFIG_DOCUMENTED[attr])
                # the size must match the attribute's own: ask for it first (sizeInBytes = 0)
                size = ctypes.c_size_t(0)
                st = L.cublasLtMatmulAlgoConfigGetAttribute(algo, code, None, 0, ctypes.byref(size))
                if st != 0 or size.value not in (1, 2, 4, 8):
                    problems.append(f"{key}: size query status {st}, size {size.value}")
                    continue
                buf, written = (ctypes.c_char * 8)(), ctypes.c_size_t(0)
                st = L.cublasLtMatmulAlgoConfigGetAttribute(algo, code, buf, size.value, ctypes.byref(written))
                if st != 0:
                    problems.append(f"{key}: status {st}")
                    continue
                out[key] = int.from_bytes(bytes(buf)[:size.value], "little", signed=(key == "algo_id"))
            if problems:
                out["attribute_errors"] = problems
            return out
        finally:
            self.release(desc, pref, layouts)

    def release(self, desc, pref, layouts):
        """Destroys what a query created (each handle only if it was created)."""
        for lay in layouts:
            self.lib.cublasLtMatrixLayoutDestroy(lay)
        if pref:
            self.lib.cublasLtMatmulPreferenceDestroy(pref)
        if desc:
            self.lib.cublasLtMatmulDescDestroy(desc)


# ------------------------------------------------------------------ cuBLASLt's log (the algo that ran)

class LtLogCapture(LTLOG.LtLogCapture):
    """The package's log capture (python/tcnum/libraries/cublaslt_log.py), warning through log()."""

    def __init__(self, toggle=True):
        super().__init__(toggle, warn=log)


def lt_log_selftest(ltlog):
    """One cuBLAS-API call (torch.mm bf16 without a bias: cublasGemmEx) and one cuBLASLt call
    (torch.addmm bf16 with a bias), each logged in a window: were their algos seen?"""
    h = torch.ones(1000, 3001, device="cuda", dtype=torch.bfloat16)  # a shape seen logged as cublasLtTSTMatmul
    g = torch.ones(3001, 999, device="cuda", dtype=torch.bfloat16)
    bias = torch.ones(999, device="cuda", dtype=torch.bfloat16)
    res = {"toggle": ltlog.toggle}
    for name, fn in (("cublas_api_mm", lambda: torch.mm(h, g)), ("cublaslt_addmm", lambda: torch.addmm(bias, h, g))):
        torch.cuda.synchronize()
        ltlog.start()
        fn()
        torch.cuda.synchronize()
        msgs = ltlog.stop()
        algos = lt_algos(msgs)
        res[name] = {"messages": len(msgs), "algos": [a["raw"] for a in algos],
                     "functions": sorted({f for _l, f, _m in msgs})[:20]}
    res["ok"] = bool(res["cublas_api_mm"]["algos"]) and bool(res["cublaslt_addmm"]["algos"])
    return res


def setup_lt_log(argv):
    """The logger, self-tested (None, info) if it is unusable; may re-execute the script (above)."""
    info = {"env": {k: os.environ.get(k) for k in ("CUBLASLT_LOG_LEVEL", "CUBLASLT_LOG_FILE", "CUBLASLT_LOG_MASK")
                    if os.environ.get(k) is not None}, "selftest": []}
    try:
        ltlog = LtLogCapture(toggle=True)
        for toggle in (True, False):
            ltlog.set_toggle(toggle)
            t = lt_log_selftest(ltlog)
            info["selftest"].append(t)
            log(f"cuBLASLt log self-test: {json.dumps(t)}")
            if t["ok"]:
                break
    except Exception as exc:  # noqa: BLE001
        info["error"] = f"{exc.__class__.__name__}: {exc}"
        log(f"cuBLASLt logger unusable: {info['error']}")
        return None, info
    if not info["selftest"][-1]["ok"] and argv is None and not os.environ.get(LT_LOG_REEXEC):
        env = dict(os.environ, CUBLASLT_LOG_LEVEL="5", CUBLASLT_LOG_FILE="/dev/null", **{LT_LOG_REEXEC: "1"})
        log("cuBLASLt log self-test failed: re-executing with CUBLASLT_LOG_LEVEL=5 CUBLASLT_LOG_FILE=/dev/null")
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    info.update({"library": ltlog.library, "file": ltlog.file, "mask": LT_LOG_MASK,
                 "mode": ("callback; mask on during the profiled call only" if ltlog.toggle
                          else "callback; mask always on, messages kept during the profiled call only"),
                 "ok": info["selftest"][-1]["ok"]})
    return ltlog, info


def parse_c_enums(text):
    """NAME -> int for the enumerators of C enums whose values are integer constant expressions
    (literals, earlier names, | & << >> + - ~ and parentheses); an enumerator whose value can't be
    read, and the implicit ones after it, are left out."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    values = {}
    for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", text):
        nxt = 0
        for item in body.split(","):
            item = item.strip()
            m = re.match(r"^([A-Za-z_]\w*)\s*(?:=\s*(.+))?$", item, flags=re.S)
            if not m:
                continue
            name, expr = m.group(1), m.group(2)
            if expr is not None:
                expr = re.sub(r"\b(0[xX][0-9A-Fa-f]+|[0-9]+)[uUlL]+\b", r"\1", expr.strip())
                nxt = None
                if re.fullmatch(r"[\w\s|&<>()+\-~]*", expr):
                    try:
                        nxt = int(eval(expr, {"__builtins__": {}}, dict(values)))  # noqa: S307 (constants only)
                    except Exception:  # noqa: BLE001
                        nxt = None
            if nxt is not None:
                values[name] = nxt
                nxt += 1
    return values


# ------------------------------------------------------------------ configurations

def pick(rng, weights):
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def make_shape(rng, shape_family, align16=False):
    """(M, N, K) for a shape family; with align16, N and K multiples of 16 (>= 16)."""
    if shape_family == "random":
        m, n, k = rng.randint(1, 4096), rng.randint(1, 4096), rng.randint(1, 8192)
    elif shape_family == "skinny":
        small, big = rng.randint(1, 64), rng.randint(1, 4096)
        m, n = (small, big) if rng.random() < 0.5 else (big, small)
        k = rng.randint(1, 8192)
    elif shape_family == "longk":
        m, n = rng.randint(1, 512), rng.randint(1, 512)
        k = int(round(2 ** rng.uniform(13, 16)))
    elif shape_family == "pow2":
        m, n, k = 2 ** rng.randint(0, 12), 2 ** rng.randint(0, 12), 2 ** rng.randint(0, 13)
    elif shape_family == "llm":
        n, k = rng.choice(LLM_NK)
        m = rng.choice(LLM_M)
    else:
        raise ValueError(shape_family)
    if align16:
        n, k = max(16, -(-n // 16) * 16), max(16, -(-k // 16) * 16)
    return m, n, k


def make_config(seed, index, inputs):
    """Configuration `index` of run `seed`: the same whatever --configs is."""
    rng = random.Random(seed * 1_000_003 + index)
    family = pick(rng, FAMILY_WEIGHTS)
    shape_family = pick(rng, SHAPE_WEIGHTS)
    dist = "normal" if rng.random() < 0.5 else "wide"
    cfg = {"family": family, "index": index, "shape_family": shape_family}
    flags = {"allow_tf32": False, "allow_bf16_reduced_precision_reduction": rng.random() < 0.5,
             "allow_fp16_reduced_precision_reduction": rng.random() < 0.5, "use_fast_accum": None}
    batch, bias, out_dtype_arg, call = 1, None, None, None
    la, lb = ("row" if rng.random() < 0.8 else "col"), ("row" if rng.random() < 0.6 else "col")
    if family == "mm_f32out":
        call, a = "torch.mm", rng.choice(["bf16", "f16"])
        b, out, out_dtype_arg = a, "f32", "float32"
    elif family == "mm_half":
        call, a = rng.choice(["torch.mm", "torch.matmul"]), rng.choice(["bf16", "f16"])
        b = out = a
    elif family == "tf32":
        call, a = rng.choice(["torch.mm", "torch.matmul"]), "f32"
        b = out = a
        flags["allow_tf32"] = True
    elif family == "bias":
        call, a = rng.choice(["torch.addmm", "torch.nn.functional.linear"]), rng.choice(["bf16", "f16", "f32"])
        b = out = a
        bias = "per_column"
        flags["allow_tf32"] = a == "f32"
        if call == "torch.nn.functional.linear":
            la, lb = "row", "col"  # weight is a contiguous N x K tensor: B = weight.t()
    elif family == "bmm":
        call, a = "torch.bmm", rng.choice(["bf16", "f16", "f32"])
        b = out = a
        flags["allow_tf32"] = a == "f32"
        batch = rng.randint(2, 4)
        if a != "f32" and rng.random() < 0.3:
            out, out_dtype_arg = "f32", "float32"
    elif family == "scaled_mm":
        call = "torch._scaled_mm"
        a, b = rng.choice([("e4m3", "e4m3"), ("e4m3", "e4m3"), ("e5m2", "e4m3"), ("e4m3", "e5m2")])
        out = rng.choice(["f32", "bf16"])
        out_dtype_arg = {"f32": "float32", "bf16": "bfloat16"}[out]
        flags["use_fast_accum"] = rng.random() < 0.5
        la, lb = "row", "col"  # _scaled_mm's requirement
    # the shape, within the work cap
    for _ in range(100):
        m, n, k = make_shape(rng, shape_family, align16=(family == "scaled_mm"))
        while batch * m * n * k > MAX_WORK and m > 1:
            m = max(1, m // 2)
        if batch * m * n * k <= MAX_WORK:
            break
    E = 0
    if dist == "wide":
        E = min(inputs.WIDE_E[x] for x in (a, b) + ((a,) if bias else ()))
    cfg.update({"call": call, "flags": flags, "a": a, "b": b, "out": out, "bias": bias, "batch": batch,
                "m": m, "n": n, "k": k, "layout": {"a": la, "b": lb}, "math": "tf32" if flags["allow_tf32"] else a,
                "out_dtype_arg": out_dtype_arg,
                "inputs": {"generator": inputs.GENERATOR, "seed": rng.getrandbits(48), "dist": dist, "E": E}})
    nr, nc = min(8, m), min(8, n)
    cfg["rows"] = sample_indices(rng, m, nr)
    cfg["cols"] = sample_indices(rng, n, nc)
    return cfg


def sample_indices(rng, n, count):
    chosen = {0, n - 1} if n > 1 else {0}
    rest = [i for i in range(1, n - 1)] if n <= 64 else None
    while len(chosen) < count:
        chosen.add(rng.choice(rest) if rest is not None else rng.randint(1, n - 2))
    return sorted(chosen)


# ------------------------------------------------------------------ grid mode (an enumeration)

# (class, family file, call, a, b, out, out_dtype_arg, use_fast_accum): the classes of --grid
GRID_CLASSES = [
    ("mm_bf16_f32", "mm_f32out", "torch.mm", "bf16", "bf16", "f32", "float32", None),
    ("mm_bf16", "mm_half", "torch.mm", "bf16", "bf16", "bf16", None, None),
    ("mm_f16", "mm_half", "torch.mm", "f16", "f16", "f16", None, None),
    ("mm_tf32", "tf32", "torch.mm", "f32", "f32", "f32", None, None),
    ("scaled_mm_e4m3_bf16_fast", "scaled_mm", "torch._scaled_mm", "e4m3", "e4m3", "bf16", "bfloat16", True),
    ("scaled_mm_e4m3_bf16", "scaled_mm", "torch._scaled_mm", "e4m3", "e4m3", "bf16", "bfloat16", False),
    ("linear_bf16_bias", "bias", "torch.nn.functional.linear", "bf16", "bf16", "bf16", None, None),
]
GRID_FAMILIES = [f for f in FAMILIES if any(c[1] == f for c in GRID_CLASSES)]
GRID_POW2_MN = [16, 64, 256, 1024, 4096]
GRID_POW2_K = GRID_POW2_MN + [8192, 16384]
GRID_LLM_M = [1, 16, 128, 512, 2048, 4096]
GRID_WIDE_EVERY = 4  # grid point j also gets a "wide" line where j % 4 == 0
# torch's documented defaults, used only by --list (a run reads torch's own at start)
TORCH_REDUCTION_DEFAULTS = {"allow_bf16_reduced_precision_reduction": True,
                            "allow_fp16_reduced_precision_reduction": True}


def grid_shapes(grid):
    """The (M, N, K) of a grid, in enumeration order."""
    if grid == "pow2":
        return [(m, n, k) for m in GRID_POW2_MN for n in GRID_POW2_MN for k in GRID_POW2_K]
    if grid == "llm":
        return [(m, n, k) for n, k in LLM_NK for m in GRID_LLM_M]
    raise ValueError(grid)


def grid_configs(grid, seed, inputs, reduction_defaults):
    """Every configuration of grid `grid` ("pow2" or "llm") for run `seed`, in index order.

    Grid points j = 0, 1, ... run over the classes (outer) and the shapes (inner, grid_shapes
    order); each point gives a "normal" configuration, and where j % 4 == 0 a "wide" one after it.
    `index` numbers the configurations 0, 1, ... in that order; the input seed and the sampled
    rows/columns come from random.Random(seed * 1000003 + index), as in the random mode. Shapes
    over the work cap are listed too (the run skips them), so indices never depend on the cap."""
    out, index, j = [], 0, 0
    for cls, family, call, a, b, out_t, out_dtype_arg, fast in GRID_CLASSES:
        for m, n, k in grid_shapes(grid):
            for dist in ("normal", "wide") if j % GRID_WIDE_EVERY == 0 else ("normal",):
                rng = random.Random(seed * 1_000_003 + index)
                flags = {"allow_tf32": a == "f32",
                         "allow_bf16_reduced_precision_reduction":
                             reduction_defaults["allow_bf16_reduced_precision_reduction"],
                         "allow_fp16_reduced_precision_reduction":
                             reduction_defaults["allow_fp16_reduced_precision_reduction"],
                         "use_fast_accum": fast}
                bias = "per_column" if call == "torch.nn.functional.linear" else None
                if call in ("torch.nn.functional.linear", "torch._scaled_mm"):
                    layout = {"a": "row", "b": "col"}  # B = (contiguous N x K)^T
                else:
                    layout = {"a": "row", "b": "row"}
                E = min(inputs.WIDE_E[x] for x in (a, b) + ((a,) if bias else ())) if dist == "wide" else 0
                cfg = {"family": family, "index": index, "shape_family": grid, "grid": grid, "grid_class": cls,
                       "grid_point": j, "call": call, "flags": flags, "a": a, "b": b, "out": out_t,
                       "bias": bias, "batch": 1, "m": m, "n": n, "k": k, "layout": layout,
                       "math": "tf32" if flags["allow_tf32"] else a, "out_dtype_arg": out_dtype_arg,
                       "inputs": {"generator": inputs.GENERATOR, "seed": rng.getrandbits(48), "dist": dist,
                                  "E": E}}
                cfg["rows"] = sample_indices(rng, m, min(8, m))
                cfg["cols"] = sample_indices(rng, n, min(8, n))
                out.append(cfg)
                index += 1
            j += 1
    return out


def over_cap(cfg):
    return cfg["batch"] * cfg["m"] * cfg["n"] * cfg["k"] > MAX_WORK


def class_key(cfg):
    key = f"{cfg['call']} {cfg['a']}x{cfg['b']}->{cfg['out']}" + (" tf32" if cfg["flags"]["allow_tf32"] else "")
    if cfg["flags"]["use_fast_accum"] is not None:
        key += " fast_accum" if cfg["flags"]["use_fast_accum"] else " no_fast_accum"
    return key


# ------------------------------------------------------------------ running one configuration

def set_flags(flags):
    cm = torch.backends.cuda.matmul
    cm.allow_tf32 = flags["allow_tf32"]
    cm.allow_bf16_reduced_precision_reduction = flags["allow_bf16_reduced_precision_reduction"]
    cm.allow_fp16_reduced_precision_reduction = flags["allow_fp16_reduced_precision_reduction"]


def build_operands(cfg, gen):
    """The torch tensors passed to the call, laid out as cfg['layout'] says."""
    ins = cfg["inputs"]
    m, n, k, batch = cfg["m"], cfg["n"], cfg["k"], cfg["batch"]

    def one(op, rows, cols, dtype, layout, seed):
        x = gen.values(seed, op, rows, cols, ins["dist"], ins["E"]).to(torch_dtype(dtype))
        return x if layout == "row" else x.t().contiguous().t()

    if batch == 1:
        a = one(1, m, k, cfg["a"], cfg["layout"]["a"], ins["seed"])
        b = one(2, k, n, cfg["b"], cfg["layout"]["b"], ins["seed"])
    else:  # batch item i from seed + i
        a = torch.stack([one(1, m, k, cfg["a"], "row", ins["seed"] + i) for i in range(batch)])
        b = torch.stack([one(2, k, n, cfg["b"], "row", ins["seed"] + i) for i in range(batch)])
        if cfg["layout"]["a"] == "col":
            a = a.transpose(1, 2).contiguous().transpose(1, 2)
        if cfg["layout"]["b"] == "col":
            b = b.transpose(1, 2).contiguous().transpose(1, 2)
    bias = None
    if cfg["bias"]:
        bias = gen.values(ins["seed"], 3, 1, n, ins["dist"], ins["E"]).to(torch_dtype(cfg["a"])).view(n)
    return a, b, bias


def make_call(cfg, a, b, bias):
    call = cfg["call"]
    od = {"float32": torch.float32, "bfloat16": torch.bfloat16, None: None}[cfg["out_dtype_arg"]]
    if call == "torch.mm":
        return (lambda: torch.mm(a, b, out_dtype=od)) if od is not None else (lambda: torch.mm(a, b))
    if call == "torch.matmul":
        return lambda: torch.matmul(a, b)
    if call == "torch.addmm":
        return lambda: torch.addmm(bias, a, b)
    if call == "torch.nn.functional.linear":
        w = b.t()  # contiguous N x K
        assert w.is_contiguous()
        return lambda: torch.nn.functional.linear(a, w, bias)
    if call == "torch.bmm":
        return (lambda: torch.bmm(a, b, out_dtype=od)) if od is not None else (lambda: torch.bmm(a, b))
    if call == "torch._scaled_mm":
        one = torch.ones((), dtype=torch.float32, device="cuda")
        sb = torch.ones((), dtype=torch.float32, device="cuda")
        assert a.is_contiguous() and b.t().is_contiguous()
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=sb, out_dtype=od,
                                        use_fast_accum=cfg["flags"]["use_fast_accum"])
    raise ValueError(call)


def kernel_names(prof):
    names = []
    try:
        evs = [e for e in prof.profiler.kineto_results.events()
               if e.device_type() == torch.autograd.DeviceType.CUDA]
        evs.sort(key=lambda e: e.start_ns() if hasattr(e, "start_ns") else e.start_us())
        names = [e.name() for e in evs]
    except Exception:  # noqa: BLE001
        evs = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        evs.sort(key=lambda e: e.time_range.start)
        names = [e.name for e in evs]
    out = []
    for nm in names:
        if nm not in out:
            out.append(nm)
    return out, len(names)


def bits_hex(t):
    if t.dtype == torch.float32:
        v = t.contiguous().view(torch.int32).cpu().tolist()
        return [f"{x & 0xFFFFFFFF:08x}" for x in v]
    v = t.contiguous().view(torch.int16).cpu().tolist()
    return [f"{x & 0xFFFF:04x}" for x in v]


def same_bits(x, y):
    iv = {4: torch.int32, 2: torch.int16, 1: torch.uint8}[x.element_size()]
    return bool(torch.equal(x.view(iv), y.view(iv)))


def align_of(t):
    p = t.data_ptr()
    a = 256
    while a > 1 and p % a:
        a //= 2
    return a


_SCALE = []


def scale_one():
    if not _SCALE:
        _SCALE.append(torch.ones((), dtype=torch.float32, device="cuda"))
    return _SCALE[0]


def heuristic_query(cfg, a, b, bias, workspace):
    """The cublasLtMatmul that computes the torch call in cuBLAS's column-major view:
    D^T (N x M) = B^T (N x K) . A^T (K x M), so cuBLAS's A is our B and its B is our A."""
    m, n, k = cfg["n"], cfg["m"], cfg["k"]
    transa = "N" if cfg["layout"]["b"] == "row" else "T"
    transb = "N" if cfg["layout"]["a"] == "row" else "T"
    compute = {"tf32": "CUBLAS_COMPUTE_32F_FAST_TF32"}.get(cfg["math"], "CUBLAS_COMPUTE_32F")
    q = {"m": m, "n": n, "k": k, "transa": transa, "transb": transb, "a": cfg["b"], "b": cfg["a"],
         "c": cfg["out"], "d": cfg["out"], "compute": compute, "batch": cfg["batch"], "workspace": workspace,
         "align": {"a": align_of(b), "b": align_of(a), "c": 256, "d": 256}}
    if cfg["bias"]:
        q["epilogue"], q["bias_ptr"] = "CUBLASLT_EPILOGUE_BIAS", bias.data_ptr()
    if cfg["call"] == "torch._scaled_mm":
        q["fast_accum"] = cfg["flags"]["use_fast_accum"]
        q["scale_a_ptr"] = q["scale_b_ptr"] = scale_one().data_ptr()
    reduced = (cfg["a"] == "bf16" and cfg["flags"]["allow_bf16_reduced_precision_reduction"]) or \
              (cfg["a"] == "f16" and cfg["flags"]["allow_fp16_reduced_precision_reduction"])
    if cfg["a"] in ("bf16", "f16") and cfg["out"] == cfg["a"] and not reduced:
        q["reduction_mask"] = "no_output_type"
    return q


def run_config(cfg, gen, lt, workspace, ltlog=None, sample=None):
    set_flags(cfg["flags"])
    a, b, bias = build_operands(cfg, gen)
    fn = make_call(cfg, a, b, bias)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                            torch.profiler.ProfilerActivity.CUDA]) as prof:
        if ltlog is not None:
            ltlog.start()
        try:
            out1 = fn()
            torch.cuda.synchronize()
        finally:
            msgs = ltlog.stop() if ltlog is not None else None
    kernels, launches = kernel_names(prof)
    if sample is not None and msgs is not None:
        sample.append(msgs)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    out2 = fn()
    end.record()
    torch.cuda.synchronize()
    rec = {k: v for k, v in cfg.items() if k not in ("family",)}
    got = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16"}[out2.dtype]
    if got != cfg["out"]:
        raise RuntimeError(f"output dtype {got}, expected {cfg['out']}")
    expect_shape = (cfg["m"], cfg["n"]) if cfg["batch"] == 1 else (cfg["batch"], cfg["m"], cfg["n"])
    if tuple(out2.shape) != expect_shape:
        raise RuntimeError(f"output shape {tuple(out2.shape)}, expected {expect_shape}")
    rec["kernels"] = kernels
    rec["kernel_launches"] = launches
    if msgs is not None:
        rec["cublaslt"] = lt_algos(msgs)
    rec["deterministic"] = same_bits(out1, out2)
    ri = torch.tensor(cfg["rows"], device="cuda")
    ci = torch.tensor(cfg["cols"], device="cuda")
    if cfg["batch"] == 1:
        rec["out_bits"] = bits_hex(out2.index_select(0, ri).index_select(1, ci).reshape(-1))
    else:
        rec["out_bits"] = [bits_hex(out2[i].index_select(0, ri).index_select(1, ci).reshape(-1))
                           for i in range(cfg["batch"])]
    rec["elapsed_ms"] = round(start.elapsed_time(end), 4)
    if lt is not None:
        q = heuristic_query(cfg, a, b, bias, workspace)
        try:
            if q.get("reduction_mask") == "no_output_type":
                q["reduction_mask"] = lt.e("CUBLASLT_REDUCTION_SCHEME_MASK") & ~lt.e("CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE")
            h = lt.query(q)
        except Exception as exc:  # noqa: BLE001
            h = {"error": f"{exc.__class__.__name__}: {exc}"}
        h["query"] = {key: q[key] for key in ("m", "n", "k", "transa", "transb", "compute", "workspace", "align")}
        for key in ("epilogue", "fast_accum", "reduction_mask"):
            if key in q:
                h["query"][key] = q[key]
        rec["heuristic"] = h
    del a, b, bias, out1, out2
    return rec


def count_lt(st, cfg, algos):
    """summary.json's "cublaslt" counts for one line."""
    def bump(d, key, n=1):
        d[str(key)] = d.get(str(key), 0) + n
    splits = [a["num_splits_k"] for a in algos]
    flags = {"lines": 1, "with_algo": int(bool(algos)), "empty": int(not algos),
             "splits_gt1": int(any(isinstance(x, int) and x > 1 for x in splits)),
             "splits_minus1": int(-1 in splits), "several_matmuls": int(len(algos) > 1)}
    for key, v in flags.items():
        st[key] += v
    for group, name in (("per_family", cfg["family"]), ("per_class", class_key(cfg))):
        g = st[group].setdefault(name, {k: 0 for k in flags})
        for key, v in flags.items():
            g[key] += v
    bump(st["matmuls_per_line"], len(algos))
    for a in algos:
        bump(st["functions"], a["function"])
        bump(st["algo_ids"], a["algo_id"])
        bump(st["num_splits_k"], a["num_splits_k"])
        bump(st["reduction_schemes"], a["reduction_scheme"])


# ------------------------------------------------------------------ main

def select_configs(args, inputs, reduction_defaults):
    """The configurations of this run, in index order: indices FIRST .. FIRST+CONFIGS-1 of the grid
    (all of it by default) or of the random sampler."""
    if args.grid:
        entries = grid_configs(args.grid, args.seed, inputs, reduction_defaults)
        last = len(entries) if args.configs is None else args.first + args.configs
        return [c for c in entries if args.first <= c["index"] < last]
    return [make_config(args.seed, i, inputs) for i in range(args.first, args.first + args.configs)]


def build_parser():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  python3 tools/libraries/capture_torch.py --out /tmp/corpus --configs 600 --seed 1\n"
               "  python3 tools/libraries/capture_torch.py --out /tmp/grid --grid pow2 --seed 11\n"
               "  python3 tools/libraries/capture_torch.py --out /tmp/check --configs 1 --check-only --generator torch\n"
               "writes DIR/{" + ",".join(FAMILIES) + "}.jsonl.gz and DIR/summary.json (docs/library-corpus.md)")
    ap.add_argument("--out", required=True, help="output folder (created; existing files are never overwritten)")
    ap.add_argument("--configs", type=int, default=None, help="number of configurations (indices FIRST.."
                    "FIRST+N-1); required without --grid, default with --grid: all of the grid")
    ap.add_argument("--grid", choices=["pow2", "llm"], default=None, help="enumerate a grid of shapes x call "
                    "classes (grid_configs) instead of sampling configurations at random")
    ap.add_argument("--list", action="store_true", help="print the configurations as JSON lines and exit "
                    "(no torch, no GPU; grid mode assumes torch's default reduced-precision flags)")
    ap.add_argument("--seed", type=int, default=1, help="run seed: configuration i is a function of (seed, i)")
    ap.add_argument("--first", type=int, default=0, help="first configuration index (default 0)")
    ap.add_argument("--families", default=",".join(FAMILIES), help="comma-separated families to keep")
    ap.add_argument("--time-budget", type=float, default=0, help="stop starting configurations after this many "
                    "seconds (0: no limit); files are closed cleanly")
    ap.add_argument("--generator", choices=["auto", "cupy", "torch"], default="auto", help="GPU generator backend")
    ap.add_argument("--no-heuristic", action="store_true", help="skip the cuBLASLt heuristic query")
    ap.add_argument("--workspace", type=int, default=32 << 20, help="workspace bytes for the heuristic query")
    ap.add_argument("--check-only", action="store_true", help="only check the GPU generator against numpy")
    ap.add_argument("--no-cublaslt-log", action="store_true", help="don't log cuBLASLt (no \"cublaslt\" key)")
    ap.add_argument("--cublaslt-log-sample", type=int, default=1, help="write the whole cuBLASLt log of the "
                    "first N calls of each call class to DIR/cublaslt-log-sample.txt (0: none; default 1)")
    return ap


def parse_args(argv):
    """The options, and the families this run records."""
    ap = build_parser()
    args = ap.parse_args(argv)
    families = [f for f in args.families.split(",") if f]
    unknown = set(families) - set(FAMILIES)
    if unknown:
        ap.error(f"unknown families {sorted(unknown)}; known: {FAMILIES}")
    if args.grid:
        families = [f for f in families if f in GRID_FAMILIES]
    elif args.configs is None and not args.check_only:
        ap.error("--configs is required without --grid")
    return args, families


def list_configs(args, families):
    inputs = load_inputs_module()
    for cfg in select_configs(args, inputs, TORCH_REDUCTION_DEFAULTS):
        if cfg["family"] in families:
            print(json.dumps(dict(cfg, over_cap=over_cap(cfg)), separators=(",", ":")))


def import_torch():
    """Imports torch (the module's global) and returns torch's default reduced-precision flags and allow_tf32,
    read before anything sets them."""
    global torch
    warnings.filterwarnings("ignore", message=".*(allow_tf32|fp32_precision|TF32|tf32).*")
    import torch as _torch
    torch = _torch
    cm = torch.backends.cuda.matmul
    reduction_defaults = {"allow_bf16_reduced_precision_reduction": bool(cm.allow_bf16_reduced_precision_reduction),
                          "allow_fp16_reduced_precision_reduction": bool(cm.allow_fp16_reduced_precision_reduction)}
    return reduction_defaults, bool(cm.allow_tf32)


def warm_up_cublas():
    """Loads and initialises cuBLAS / cuBLASLt, so that their versions can be read."""
    w = torch.ones(64, 64, device="cuda", dtype=torch.bfloat16)
    torch.mm(w, w)
    torch._scaled_mm(w.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn).t().contiguous().t(),
                     scale_a=torch.ones((), device="cuda"), scale_b=torch.ones((), device="cuda"),
                     out_dtype=torch.float32)
    torch.addmm(w[0], w, w)
    torch.cuda.synchronize()


def open_heuristic(args):
    """The cuBLASLt heuristic query, or None and why not."""
    if args.no_heuristic:
        return None, None
    try:
        return LtHeuristic(), None
    except Exception as exc:  # noqa: BLE001
        lt_error = f"{exc.__class__.__name__}: {exc}"
        log(f"cuBLASLt heuristic off: {lt_error}")
        return None, lt_error


def corpus_header(args, argv, inputs, check, start_flags, lt, lt_error, ltlog_info):
    """The first line of every family's file: device, command, generator, torch's flags at start."""
    return {"kind": "tcnum-library-corpus", "version": 1, "device": device_info(),
            "recorded": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": "python3 " + " ".join(shlex.quote(x) for x in [sys.argv[0]] + (argv or sys.argv[1:])),
            "run_seed": args.seed, **({"grid": args.grid} if args.grid else {}), "generator": inputs.GENERATOR, "generator_check": check,
            "flags_at_start": {"preferred_blas_library": str(torch.backends.cuda.preferred_blas_library()),
                               "float32_matmul_precision": torch.get_float32_matmul_precision(),
                               "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
                               **start_flags},
            "heuristic": ({"library": lt.library, "headers": lt.header_dir, "workspace": args.workspace}
                          if lt else {"off": lt_error or "--no-heuristic"}),
            "cublaslt_log": ltlog_info}


def new_stats(args, ltlog):
    stats = {"configs": 0, "errors": 0, "nondeterministic": 0, "per_family": {}, "kernels": {}, "error_lines": [],
             "per_class": {}, "per_dist": {}, "per_shape_family": {}}
    if args.grid:
        stats["skipped_over_cap"] = []
    if ltlog is not None:
        stats["cublaslt"] = {"lines": 0, "with_algo": 0, "empty": 0, "splits_gt1": 0, "splits_minus1": 0,
                             "several_matmuls": 0, "per_family": {}, "per_class": {}, "functions": {},
                             "algo_ids": {}, "num_splits_k": {}, "reduction_schemes": {}, "matmuls_per_line": {}}
    return stats


def error_record(cfg, exc, stats):
    """A call torch refuses: recorded with its error, not fatal."""
    i = cfg["index"]
    rec = {k: v for k, v in cfg.items() if k != "family"}
    rec["error"] = f"{exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    stats["errors"] += 1
    stats["error_lines"].append(f"{i} {cfg['call']} {cfg['a']}x{cfg['b']}->{cfg['out']} "
                                f"{cfg['m']}x{cfg['n']}x{cfg['k']}: {rec['error'][:200]}")
    torch.cuda.synchronize()
    return rec


def count_record(stats, cfg, rec):
    fam = stats["per_family"].setdefault(cfg["family"], {})
    key = f"{cfg['call']} {cfg['a']}x{cfg['b']}->{cfg['out']}" + (" tf32" if cfg["flags"]["allow_tf32"] else "")
    fam[key] = fam.get(key, 0) + 1
    for sk, sv in (("per_class", class_key(cfg)), ("per_dist", cfg["inputs"]["dist"]),
                   ("per_shape_family", cfg["shape_family"])):
        stats[sk][sv] = stats[sk].get(sv, 0) + 1
    stats["configs"] += 1
    if "error" not in rec:
        stats["nondeterministic"] += not rec["deterministic"]
        for kn in rec["kernels"]:
            stats["kernels"][kn] = stats["kernels"].get(kn, 0) + 1
    if "cublaslt" in rec:
        count_lt(stats["cublaslt"], cfg, rec["cublaslt"])


def write_log_sample(sample_fh, cfg, sample):
    sample_fh.write(f"===== #{cfg['index']} [{cfg['family']}] {class_key(cfg)} {cfg['batch']}x{cfg['m']}x"
                    f"{cfg['n']}x{cfg['k']} layout {cfg['layout']['a']}/{cfg['layout']['b']}\n")
    for lv, fnn, msg in sample[0]:
        sample_fh.write(f"[{lv}] {fnn}: {msg}\n")


class CaptureRun:
    """One recording run: the family files, the cuBLASLt log and its sample, the statistics."""

    def __init__(self, args, gen, lt, ltlog, files, sample_fh, stats, t_start):
        self.args, self.gen, self.lt, self.ltlog = args, gen, lt, ltlog
        self.files, self.sample_fh, self.stats, self.t_start = files, sample_fh, stats, t_start
        self.sampled = {}

    def record(self, cfg, n_done, total):
        """Runs one configuration and writes its record (skipped: a family not kept, a grid shape over the cap)."""
        args, stats, i = self.args, self.stats, cfg["index"]
        if cfg["family"] not in self.files:
            return
        if args.grid and over_cap(cfg):  # grid mode: skipped, nothing recorded
            stats["skipped_over_cap"].append(f"{i} {cfg['grid_class']} {cfg['inputs']['dist']} "
                                             f"{cfg['m']}x{cfg['n']}x{cfg['k']}")
            return
        t0 = time.perf_counter()
        sample = [] if self.sample_fh and self.sampled.get(class_key(cfg), 0) < args.cublaslt_log_sample else None
        try:
            rec = run_config(cfg, self.gen, self.lt, args.workspace, self.ltlog, sample)
        except Exception as exc:  # noqa: BLE001  (a call torch refuses is recorded, not fatal)
            rec = error_record(cfg, exc, stats)
        self.files[cfg["family"]].write(json.dumps(rec, separators=(",", ":")) + "\n")
        count_record(stats, cfg, rec)
        if sample:
            self.sampled[class_key(cfg)] = self.sampled.get(class_key(cfg), 0) + 1
            write_log_sample(self.sample_fh, cfg, sample)
        log(f"config {n_done}/{total} #{i} [{cfg['family']}] {cfg['call']} {cfg['a']}x{cfg['b']}->"
            f"{cfg['out']} {cfg['batch']}x{cfg['m']}x{cfg['n']}x{cfg['k']}: "
            f"{'ERROR ' + rec['error'][:120] if 'error' in rec else ', '.join(k[:60] for k in rec['kernels'])}"
            f" ({time.perf_counter() - t0:.2f} s, total {time.perf_counter() - self.t_start:.0f} s)")

    def record_all(self, configs):
        """Records the configurations in order; returns why it stopped early, or None."""
        for n_done, cfg in enumerate(configs, 1):
            elapsed = time.perf_counter() - self.t_start
            if self.args.time_budget and elapsed > self.args.time_budget:
                stopped = f"time budget {self.args.time_budget} s reached before configuration {cfg['index']}"
                log(stopped)
                return stopped
            self.record(cfg, n_done, len(configs))
        return None

    def close(self, stopped, header, summary_path):
        """Closes every file and writes the summary, even after an error."""
        stats = self.stats
        for fh in self.files.values():
            fh.close()
        if self.sample_fh:
            self.sample_fh.close()
        if self.ltlog is not None:
            stats["cublaslt"]["messages_total"] = self.ltlog.total
            stats["cublaslt"]["messages_outside_windows"] = self.ltlog.outside
        stats["stopped"] = stopped
        stats["seconds"] = round(time.perf_counter() - self.t_start, 1)
        stats["kernels"] = dict(sorted(stats["kernels"].items(), key=lambda kv: -kv[1]))
        with open(summary_path, "x") as f:
            json.dump({"header": header, "summary": stats}, f, indent=1)
            f.write("\n")


def main(argv=None):
    args, families = parse_args(argv)
    if args.list:
        list_configs(args, families)
        return 0

    out_dir = pathlib.Path(args.out)
    paths = {f: out_dir / f"{f}.jsonl.gz" for f in families}
    summary_path = out_dir / "summary.json"
    sample_path = out_dir / "cublaslt-log-sample.txt"
    existing = [str(p) for p in list(paths.values()) + [summary_path, sample_path] if p.exists()]
    if existing:
        log(f"error: output exists, not overwriting: {', '.join(existing)}")
        return 2

    reduction_defaults, tf32_default = import_torch()
    if not torch.cuda.is_available():
        log("error: no CUDA device visible to torch")
        return 1
    inputs = load_inputs_module()
    t_start = time.perf_counter()
    gen = GpuGenerator(inputs, args.generator)
    check = check_generator(gen, inputs)
    log(f"generator check: {json.dumps(check)}")
    if not check["ok"]:
        log("error: GPU generator differs from inputs.py; nothing recorded")
        return 3
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.check_only:
        summary_path.write_text(json.dumps({"generator_check": check}, indent=1) + "\n")
        return 0

    warm_up_cublas()
    ltlog, ltlog_info = None, {"off": "--no-cublaslt-log"}
    if not args.no_cublaslt_log:
        ltlog, ltlog_info = setup_lt_log(argv)  # before any output file is opened (it may re-execute)
    lt, lt_error = open_heuristic(args)
    header = corpus_header(args, argv, inputs, check, {"allow_tf32": tf32_default, **reduction_defaults},
                           lt, lt_error, ltlog_info)
    files = {}
    for f in families:
        fh = gzip.open(paths[f], "xt", encoding="utf-8", compresslevel=9)
        fh.write(json.dumps(dict(header, family=f), separators=(",", ":")) + "\n")
        files[f] = fh
    stats = new_stats(args, ltlog)
    sample_fh = open(sample_path, "x") if ltlog is not None and args.cublaslt_log_sample > 0 else None
    run = CaptureRun(args, gen, lt, ltlog, files, sample_fh, stats, t_start)
    configs = select_configs(args, inputs, reduction_defaults)
    stopped = None
    try:
        stopped = run.record_all(configs)
    finally:
        run.close(stopped, header, summary_path)
    log(f"done: {stats['configs']} configurations, {stats['errors']} errors, "
        f"{stats['nondeterministic']} nondeterministic, {stats['seconds']} s")
    if ltlog is not None:
        c = stats["cublaslt"]
        log(f"cuBLASLt log: {c['with_algo']} of {c['lines']} lines with a logged algo, {c['splits_gt1']} with "
            f"numSplitsK > 1, {c['splits_minus1']} with -1, {c['several_matmuls']} with several matmuls")
    return 0


if __name__ == "__main__":
    sys.exit(main())

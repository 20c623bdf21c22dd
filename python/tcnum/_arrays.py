"""Formats and arrays: which numpy dtype holds which tensor-core format, and how any input
(numpy, ml_dtypes, DLPack, ``__array__``) becomes a contiguous raw-bit array, with no
per-element Python work."""

from __future__ import annotations

import sys

import ml_dtypes
import numpy as np

from . import _tcnum

# format name (PTX) -> (storage dtype, value dtype)
FORMATS = {
    "f32": (np.dtype(np.uint32), np.dtype(np.float32)),
    "tf32": (np.dtype(np.uint32), np.dtype(np.float32)),  # the register; low 13 bits ignored
    "f16": (np.dtype(np.uint16), np.dtype(np.float16)),
    "bf16": (np.dtype(np.uint16), np.dtype(ml_dtypes.bfloat16)),
    "e4m3": (np.dtype(np.uint8), np.dtype(ml_dtypes.float8_e4m3fn)),
    "e5m2": (np.dtype(np.uint8), np.dtype(ml_dtypes.float8_e5m2)),
    # Blackwell: FP4/FP6 codes in the low 4/6 bits of a byte (ml_dtypes holds them the same way),
    # the block-scale formats as bytes (ue4m3's bit 7 is not read; its values shown as e4m3fn).
    "e2m1": (np.dtype(np.uint8), np.dtype(ml_dtypes.float4_e2m1fn)),
    "e2m3": (np.dtype(np.uint8), np.dtype(ml_dtypes.float6_e2m3fn)),
    "e3m2": (np.dtype(np.uint8), np.dtype(ml_dtypes.float6_e3m2fn)),
    "ue8m0": (np.dtype(np.uint8), np.dtype(ml_dtypes.float8_e8m0fnu)),
    "ue4m3": (np.dtype(np.uint8), np.dtype(ml_dtypes.float8_e4m3fn)),
    # Integer MMA: s8/u8 as int8/uint8; s4/u4 one per byte (not packed), as int8 in [-8, 7] and
    # uint8 in [0, 15] (the low 4 bits are the element); s32 C and D as int32.
    "s8": (np.dtype(np.uint8), np.dtype(np.int8)),
    "u8": (np.dtype(np.uint8), np.dtype(np.uint8)),
    "s4": (np.dtype(np.uint8), np.dtype(np.int8)),
    "u4": (np.dtype(np.uint8), np.dtype(np.uint8)),
    "s32": (np.dtype(np.uint32), np.dtype(np.int32)),
    # AMD CDNA3's fp8/bf8: FNUZ (no Inf, no -0, NaN = 0x80)
    "e4m3fnuz": (np.dtype(np.uint8), np.dtype(ml_dtypes.float8_e4m3fnuz)),
    "e5m2fnuz": (np.dtype(np.uint8), np.dtype(ml_dtypes.float8_e5m2fnuz)),
}

# the range of each integer operand format (values outside are refused, not wrapped)
INTEGER_RANGES = {"s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15), "s32": (-2**31, 2**31 - 1)}

_ALIASES = {
    "fp32": "f32", "float32": "f32", "fp16": "f16", "float16": "f16", "half": "f16",
    "bfloat16": "bf16", "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2",
    "float4_e2m1fn": "e2m1", "float6_e2m3fn": "e2m3", "float6_e3m2fn": "e3m2", "float8_e8m0fnu": "ue8m0",
    "float8_e4m3fnuz": "e4m3fnuz", "float8_e5m2fnuz": "e5m2fnuz",
}

# value dtype -> formats it can hold (float32 holds f32 and tf32)
_DTYPE_FORMATS = {
    np.dtype(np.float32): ("f32", "tf32"),
    np.dtype(np.float16): ("f16",),
    np.dtype(ml_dtypes.bfloat16): ("bf16",),
    np.dtype(ml_dtypes.float8_e4m3fn): ("e4m3",),
    np.dtype(ml_dtypes.float8_e5m2): ("e5m2",),
    np.dtype(ml_dtypes.float4_e2m1fn): ("e2m1",),
    np.dtype(ml_dtypes.float6_e2m3fn): ("e2m3",),
    np.dtype(ml_dtypes.float6_e3m2fn): ("e3m2",),
    np.dtype(ml_dtypes.float8_e8m0fnu): ("ue8m0",),
    np.dtype(np.int8): ("s8", "s4"),
    np.dtype(np.int32): ("s32",),
    np.dtype(ml_dtypes.float8_e4m3fnuz): ("e4m3fnuz",),
    np.dtype(ml_dtypes.float8_e5m2fnuz): ("e5m2fnuz",),
}
_RAW = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32))

# names import_dlpack reports for types numpy cannot hold (torch bf16/fp8 tensors)
_DLPACK_DTYPES = {
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float8_e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "float8_e5m2": np.dtype(ml_dtypes.float8_e5m2),
}

VALID_DTYPES = ("ml_dtypes.bfloat16, numpy.float16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, "
                "ml_dtypes.float4_e2m1fn, ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn, ml_dtypes.float8_e8m0fnu, "
                "ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2fnuz (AMD), "
                "numpy.float32 (f32, or tf32 with its low 13 bits ignored), numpy.int8 (s8, s4), numpy.int32 (s32), "
                "or raw uint8/uint16/uint32 bits with a format (uint8 also holds u8 and u4 values)")


def format_name(fmt: str) -> str:
    """The PTX name of a format ("bf16"), from it or an alias ("bfloat16", "fp16")."""
    if not isinstance(fmt, str):
        raise TypeError(f"a format is a name such as 'bf16', got {type(fmt).__name__}")
    name = _ALIASES.get(fmt.lower(), fmt.lower())
    if name not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    return name


def value_dtype(fmt: str) -> np.dtype:
    return FORMATS[format_name(fmt)][1]


def storage_dtype(fmt: str) -> np.dtype:
    return FORMATS[format_name(fmt)][0]


def to_numpy(x, what: str) -> np.ndarray:
    """Any array-like as a numpy array (a view where possible). DLPack types numpy lacks
    (bf16, fp8 torch tensors) come back with the ml_dtypes dtype."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__dlpack__"):
        if hasattr(x, "__dlpack_device__") and x.__dlpack_device__()[0] != 1:  # kDLCPU
            raise TypeError(f"{what}: tcnum computes on the CPU; move the tensor there first (e.g. .cpu())")
        if hasattr(x, "detach"):  # torch: exporting a tensor that requires grad is refused
            x = x.detach()
        try:
            return np.from_dlpack(x)
        except (TypeError, BufferError, RuntimeError, ValueError):
            pass
        try:
            bits, name = _tcnum.import_dlpack(x)
        except (TypeError, BufferError, RuntimeError, ValueError) as e:
            viewed = _torch_view(x)  # producers that do not export their fp8 types through DLPack
            if viewed is None:
                raise TypeError(f"{what}: cannot import it through DLPack ({e}); valid: {VALID_DTYPES}") from e
            return viewed
        if name in _DLPACK_DTYPES:
            return bits.view(_DLPACK_DTYPES[name])
        raise TypeError(f"{what}: element type {name} is not a tensor-core format; valid: {VALID_DTYPES}")
    if hasattr(x, "__array__"):
        return np.asarray(x)
    arr = np.asarray(x)
    if arr.dtype == object:
        raise TypeError(f"{what}: expected an array, got {type(x).__name__}")
    return arr


def _torch_view(x):
    """A torch CPU tensor of bf16/fp8 as an ml_dtypes array, through an integer view."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(x, torch.Tensor):
        return None
    name = str(x.dtype).replace("torch.", "")
    if name not in _DLPACK_DTYPES:
        return None
    as_int = {1: (torch.uint8, np.uint8), 2: (torch.int16, np.uint16)}[x.element_size()]
    return x.contiguous().view(as_int[0]).numpy().view(as_int[1]).view(_DLPACK_DTYPES[name])


def asarray(x) -> np.ndarray:
    """Any array-like (numpy, torch CPU tensor, DLPack, __array__) as a numpy array, with the
    ml_dtypes dtype where numpy has none (torch bfloat16/float8 tensors); a view where possible."""
    return to_numpy(x, "x")


def formats_of(arr: np.ndarray, what: str) -> tuple:
    """The formats an array's dtype can hold; () for raw bits."""
    if arr.dtype in _DTYPE_FORMATS:
        return _DTYPE_FORMATS[arr.dtype]
    if arr.dtype in _RAW:
        return ()
    raise TypeError(f"{what}: dtype {arr.dtype} is not a tensor-core format; valid: {VALID_DTYPES}")


def as_bits(x, what: str, fmt: str | None = None, allowed: tuple | None = None):
    """(contiguous raw-bit array, format) of an operand.

    fmt: the format the operand must have (from an explicit instruction), or None to take it
    from the dtype; raw uint arrays need fmt. allowed: formats acceptable when fmt is None.
    """
    arr = to_numpy(x, what)
    held = formats_of(arr, what)
    if fmt is not None:
        fmt = format_name(fmt)
        storage, value = FORMATS[fmt]
        if held and fmt not in held:
            raise TypeError(f"{what}: expected {fmt} ({value} or raw {storage} bits), got {arr.dtype}")
        if not held and arr.dtype != storage:
            raise TypeError(f"{what}: raw bits of {fmt} are {storage}, got {arr.dtype}")
    else:
        if not held:
            raise TypeError(f"{what}: raw {arr.dtype} bits need a format: give instr=..., or view them as values "
                            f"with tcnum.from_bits(bits, fmt), fmt one of {', '.join(FORMATS)}")
        candidates = [f for f in held if allowed is None or f in allowed]
        if not candidates:
            raise TypeError(f"{what}: dtype {arr.dtype} is not allowed here; valid formats: {', '.join(allowed)}")
        fmt = candidates[0]
    storage = FORMATS[fmt][0]
    if fmt in ("s4", "u4") and arr.size:  # values (int8 for s4), or raw nibbles (uint8: 0..15)
        lo, hi = INTEGER_RANGES[fmt] if arr.dtype == FORMATS[fmt][1] else (0, 15)
        if arr.min() < lo or arr.max() > hi:
            raise ValueError(f"{what}: {fmt} values are {lo}..{hi} (one per byte, not packed), got "
                             f"{arr.min()}..{arr.max()}")
    return np.ascontiguousarray(arr).view(storage), fmt


def values_of(bits: np.ndarray, fmt: str) -> np.ndarray:
    """Raw bits of a format as its value dtype; s4 nibbles sign-extended into int8 ([-8, 7])."""
    if fmt == "s4":
        v = (bits & 0xF).astype(np.int8)
        return np.where(v > 7, v - 16, v).astype(np.int8)
    return bits.view(FORMATS[fmt][1])


def from_bits(bits, fmt: str) -> np.ndarray:
    """Raw bits (uint8/16/32) viewed as values of a format's dtype (no copy; s4: a sign-extended
    int8 copy)."""
    arr = to_numpy(bits, "bits")
    storage, value = FORMATS[format_name(fmt)]
    if arr.dtype != storage:
        raise TypeError(f"raw bits of {format_name(fmt)} are {storage}, got {arr.dtype}")
    return values_of(arr, format_name(fmt))


def to_bits(x) -> np.ndarray:
    """The raw bits of an array of a tensor-core dtype (no copy where possible)."""
    arr = to_numpy(x, "x")
    if arr.dtype in _RAW:
        return arr
    formats_of(arr, "x")
    return np.ascontiguousarray(arr).view(FORMATS[_DTYPE_FORMATS[arr.dtype][0]][0])


def decode(bits, fmt: str) -> np.ndarray:
    """Exact float64 values of raw bits of a format (tf32: low 13 bits ignored)."""
    arr = np.ascontiguousarray(to_numpy(bits, "bits"))
    fmt = format_name(fmt)
    if arr.dtype != FORMATS[fmt][0]:
        raise TypeError(f"raw bits of {fmt} are {FORMATS[fmt][0]}, got {arr.dtype}")
    return _tcnum.decode(arr, fmt).reshape(arr.shape)


def encode(values, fmt: str, *, rounding: str = "nearest_even", satfinite: bool = False) -> np.ndarray:
    """Raw bits of values rounded into a format: rounding "nearest_even" or "toward_zero";
    satfinite: overflow gives ±max finite instead of ±Inf (e4m3, which has no Inf, always)."""
    if rounding not in ("nearest_even", "toward_zero"):
        raise ValueError(f"rounding {rounding!r}; valid: 'nearest_even', 'toward_zero'")
    arr = np.ascontiguousarray(np.asarray(values, dtype=np.float64))
    fmt = format_name(fmt)
    return _tcnum.encode(arr, fmt, rounding == "toward_zero", bool(satfinite)).reshape(arr.shape)

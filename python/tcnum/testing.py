"""Bit-exact assertions for kernel tests: tcnum.testing.assert_bitexact(actual, expected).

The mismatch report has the content of the C++ compare report: how many elements differ,
the first ones with their coordinates, both values as numbers and as bits, and the ULP
distance; then the largest ULP distance and the NaN/Inf/-0 classes involved.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ._arrays import FORMATS, as_bits, format_name, to_numpy, formats_of

__all__ = ["assert_bitexact", "compare", "Mismatch", "Report"]


@dataclasses.dataclass
class Mismatch:
    index: tuple
    actual: float
    expected: float
    actual_bits: int
    expected_bits: int
    ulp: int | None  # None where either side is NaN

    def describe(self, width: int) -> str:
        ulp = "NaN" if self.ulp is None else f"{self.ulp} ULP"
        return (f"  at {self.index}: actual {self.actual!r} (0x{self.actual_bits:0{width}x}), "
                f"expected {self.expected!r} (0x{self.expected_bits:0{width}x}), {ulp}")


@dataclasses.dataclass
class Report:
    format: str
    shape: tuple
    count: int          # elements whose bits differ
    total: int
    first: list         # the first Mismatch records, in row-major order
    max_ulp: int | None
    max_ulp_index: tuple | None
    classes: dict       # e.g. {"actual NaN": 2, "expected -0": 1} among the differing elements

    def __bool__(self) -> bool:
        return self.count == 0

    def __str__(self) -> str:
        if self.count == 0:
            return f"all {self.total} {self.format} elements are bit-identical"
        width = 2 * FORMATS[self.format][0].itemsize
        lines = [f"{self.count} of {self.total} {self.format} elements differ (shape {self.shape}); "
                 f"first {len(self.first)}:"]
        lines += [m.describe(width) for m in self.first]
        if self.max_ulp is not None:
            lines.append(f"max ULP distance {self.max_ulp} at {self.max_ulp_index}")
        if self.classes:
            lines.append("special values among them: " + ", ".join(f"{k} {v}" for k, v in self.classes.items()))
        return "\n".join(lines)


def _ordered(bits: np.ndarray, width: int) -> np.ndarray:
    """Sign-magnitude bits as integers ordered like the values (±0 both 0)."""
    b = bits.astype(np.int64)
    sign = b >> (width - 1)
    mag = b & ((1 << (width - 1)) - 1)
    return np.where(sign == 1, -mag, mag)


def _classes(bits: np.ndarray, values: np.ndarray, width: int) -> dict:
    return {"NaN": np.isnan(values), "Inf": np.isinf(values),
            "-0": (values == 0) & ((bits.astype(np.int64) >> (width - 1)) == 1)}


def _operand(x, what: str, fmt: str | None):
    arr = to_numpy(x, what)
    if fmt is None and not formats_of(arr, what):
        raise TypeError(f"{what}: raw {arr.dtype} bits need format=... (one of {', '.join(FORMATS)})")
    return as_bits(arr, what, fmt)


def compare(actual, expected, *, format: str | None = None, max_report: int = 10) -> Report:
    """The element-by-element bit comparison of two arrays of one format and shape."""
    fmt = None if format is None else format_name(format)
    a_arr, e_arr = to_numpy(actual, "actual"), to_numpy(expected, "expected")
    if fmt is None and a_arr.dtype != e_arr.dtype and formats_of(a_arr, "actual") and formats_of(e_arr, "expected"):
        raise TypeError(f"actual is {a_arr.dtype} but expected is {e_arr.dtype}: convert one first "
                        "(a bit-exact check compares one format)")
    a_bits, fa = _operand(a_arr, "actual", fmt)
    e_bits, fe = _operand(e_arr, "expected", fmt or fa)
    if a_bits.shape != e_bits.shape:
        raise ValueError(f"shapes differ: actual {a_bits.shape}, expected {e_bits.shape}")
    fmt = fa
    width = 8 * FORMATS[fmt][0].itemsize
    a_vals = a_bits.view(FORMATS[fmt][1]).astype(np.float64)
    e_vals = e_bits.view(FORMATS[fmt][1]).astype(np.float64)
    if fmt == "tf32":  # the low 13 register bits are not part of the value
        a_bits, e_bits = a_bits & np.uint32(0xFFFFE000), e_bits & np.uint32(0xFFFFE000)
    differ = a_bits != e_bits
    count = int(differ.sum())
    nan = np.isnan(a_vals) | np.isnan(e_vals)
    ulp = np.abs(_ordered(a_bits, width) - _ordered(e_bits, width))
    idx = np.argwhere(differ)[:max_report]
    first = [Mismatch(index=tuple(int(i) for i in ix), actual=float(a_vals[tuple(ix)]),
                      expected=float(e_vals[tuple(ix)]), actual_bits=int(a_bits[tuple(ix)]),
                      expected_bits=int(e_bits[tuple(ix)]),
                      ulp=None if nan[tuple(ix)] else int(ulp[tuple(ix)])) for ix in idx]
    finite_diff = differ & ~nan
    max_ulp = max_at = None
    if finite_diff.any():
        masked = np.where(finite_diff, ulp, -1)
        flat = int(np.argmax(masked))
        max_ulp, max_at = int(masked.reshape(-1)[flat]), tuple(int(i) for i in np.unravel_index(flat, masked.shape))
    classes = {}
    for side, bits, vals in (("actual", a_bits, a_vals), ("expected", e_bits, e_vals)):
        for name, mask in _classes(bits, vals, width).items():
            n = int((mask & differ).sum())
            if n:
                classes[f"{side} {name}"] = n
    return Report(format=fmt, shape=a_bits.shape, count=count, total=int(a_bits.size), first=first,
                  max_ulp=max_ulp, max_ulp_index=max_at, classes=classes)


def assert_bitexact(actual, expected, *, format: str | None = None, max_report: int = 10, msg: str = "") -> None:
    """Raises AssertionError with the mismatch report unless actual and expected have the
    same bits everywhere (tf32: the low 13 register bits aside). Arrays of any tensor-core
    dtype, DLPack/__array__ objects (torch CPU tensors), or raw uint bits with format=..."""
    report = compare(actual, expected, format=format, max_report=max_report)
    if report.count:
        raise AssertionError((msg + "\n" if msg else "") + str(report))

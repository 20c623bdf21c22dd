"""Bit-exact assertions for kernel tests: tcnum.testing.assert_bitexact(actual, expected).

The report is the C++ library's own (tcnum::compare, tcnum/testing/compare.hpp): how many
elements differ, the first ones with their coordinates, both values as numbers and as bits,
their ULP distance, the largest ULP distance and relative error, and the NaN/Inf/-0 classes.
Bit-exact by default; ulps / any_nan / any_zero_sign loosen it for kernels not meant to be.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import _tcnum
from ._arrays import _DTYPE_FORMATS as _VALUE_DTYPES, _RAW as _RAW_DTYPES, FORMATS, as_bits, format_name, formats_of, to_numpy

__all__ = ["assert_bitexact", "assert_close_ulps", "compare", "Mismatch", "Report"]


@dataclasses.dataclass
class Mismatch:
    index: tuple        # coordinates in the compared arrays' own shape
    expected: float
    actual: float
    expected_bits: int
    actual_bits: int
    ulp: int | None     # None where a NaN is involved or exactly one side is infinite


@dataclasses.dataclass
class Report:
    format: str
    shape: tuple
    count: int               # elements that differ (outside the tolerance; bit-exact: bits differ)
    not_identical: int       # elements whose bits differ, within the tolerance or not
    total: int
    first: list              # the first Mismatch records, in row-major order
    max_ulp: int
    max_relative_error: float
    class_mismatches: int    # one side NaN/Inf/±0 and the other not in that class
    expected_classes: dict   # {"nan": .., "inf": .., "negative_zero": ..}
    actual_classes: dict
    tolerance: str
    text: str                # tcnum::CompareReport::to_string()
    # compare(..., accumulators=(kernel_acc, oracle_acc)): the accumulators' own Report; the
    # fields above are then D's.
    accumulator: Report | None = None

    def __bool__(self) -> bool:
        return self.count == 0 and (self.accumulator is None or bool(self.accumulator))

    @property
    def verdict(self) -> str:
        """"passes" / "fails"; with accumulators, e.g. "passes on D, fails on the accumulator"."""
        d = "passes" if self.count == 0 else "fails"
        if self.accumulator is None:
            return d
        acc = "passes" if not self.accumulator.count else "fails"
        return f"{d} on D and on the accumulator" if d == acc else f"{d} on D, {acc} on the accumulator"

    def _body(self) -> str:
        if len(self.shape) == 2:
            return self.text
        cols = self.shape[-1] if self.shape else 1
        rows = self.total // cols if cols else 0
        return (f"(shape {self.shape}, compared as a {rows}×{cols} matrix: rows are the leading axes "
                f"flattened; coordinates in the shape: {[m.index for m in self.first]})\n" + self.text)

    def __str__(self) -> str:
        if self.accumulator is None:
            return self._body()
        return (f"{self.verdict}: {self.count} of {self.total} D elements and {self.accumulator.count} of "
                f"{self.accumulator.total} accumulators differ\nD: {self._body()}\naccumulator: "
                f"{self.accumulator._body()}")


def _typed(x, what: str, fmt: str | None):
    arr = to_numpy(x, what)
    if fmt is None and not formats_of(arr, what):
        raise TypeError(f"{what}: raw {arr.dtype} bits need format=... (one of {', '.join(FORMATS)})")
    return arr


def _accumulator_pair(accumulators) -> tuple:
    if not isinstance(accumulators, (tuple, list)) or len(accumulators) != 2:
        raise TypeError("accumulators must be a pair (kernel's accumulators, oracle's accumulators), e.g. "
                        "(kernel_acc, tcnum.gemm(a, b))")
    return accumulators[0], accumulators[1]


def compare(actual, expected, *, format: str | None = None, ulps: int = 0, any_nan: bool = False,
            any_zero_sign: bool = False, max_report: int = 10, accumulators=None) -> Report:
    """The element-by-element comparison of two arrays of one format and shape (the C++
    compare report). Bit-exact unless ulps > 0, any_nan or any_zero_sign.

    accumulators=(kernel_acc, oracle_acc): the kernel's accumulators (it run with an fp32 D and no
    epilogue) and the oracle's (tcnum.gemm(a, b)), compared as well, with the same tolerance, in
    their own format (format= is D's). The Report's fields stay D's; report.accumulator is the
    accumulators' Report, report.verdict says e.g. "passes on D, fails on the accumulator" and
    the report is true only when both pass."""
    if accumulators is not None:
        acc_actual, acc_expected = _accumulator_pair(accumulators)
        report = compare(actual, expected, format=format, ulps=ulps, any_nan=any_nan, any_zero_sign=any_zero_sign,
                         max_report=max_report)
        report.accumulator = compare(acc_actual, acc_expected, ulps=ulps, any_nan=any_nan,
                                     any_zero_sign=any_zero_sign, max_report=max_report)
        return report
    fmt = None if format is None else format_name(format)
    a_arr, e_arr = _typed(actual, "actual", fmt), _typed(expected, "expected", fmt)
    if fmt is None and a_arr.dtype != e_arr.dtype:
        raise TypeError(f"actual is {a_arr.dtype} but expected is {e_arr.dtype}: convert one first "
                        "(a bit-exact check compares one format)")
    a_bits, fmt = as_bits(a_arr, "actual", fmt)
    e_bits, _ = as_bits(e_arr, "expected", fmt)
    if a_bits.shape != e_bits.shape:
        raise ValueError(f"shapes differ: actual {a_bits.shape}, expected {e_bits.shape}")
    shape = a_bits.shape
    cols = shape[-1] if len(shape) else 1
    rows = int(np.prod(shape[:-1], dtype=np.int64)) if len(shape) > 1 else 1
    if ulps < 0:
        raise ValueError(f"ulps must be >= 0, got {ulps}")
    r = _tcnum.compare(e_bits, a_bits, fmt, rows, cols, int(ulps), bool(any_nan), bool(any_zero_sign),
                       int(max_report))
    first = []
    for row, col, eb, ab, ev, av, ulp in r["first"]:
        index = tuple(int(i) for i in np.unravel_index(row * cols + col, shape)) if shape else ()
        first.append(Mismatch(index=index, expected=ev, actual=av, expected_bits=eb, actual_bits=ab, ulp=ulp))
    return Report(format=fmt, shape=shape, count=r["differing"], not_identical=r["not_identical"],
                  total=int(np.prod(shape, dtype=np.int64)), first=first, max_ulp=r["max_ulps"],
                  max_relative_error=r["max_relative_error"], class_mismatches=r["class_mismatches"],
                  expected_classes=r["expected_classes"], actual_classes=r["actual_classes"],
                  tolerance=r["tolerance"], text=r["text"])


def _mismatch_of_kind(actual, expected, fmt: str | None, msg: str) -> str | None:
    """The message for arrays that cannot be equal whatever their bits (a different shape or
    dtype), or None. Raw bits of one storage dtype without a format stay a usage error."""
    a_arr, e_arr = to_numpy(actual, "actual"), to_numpy(expected, "expected")
    prefix = msg + "\n" if msg else ""
    if fmt is None:
        if a_arr.dtype != e_arr.dtype:
            return (f"{prefix}dtypes differ: actual {a_arr.dtype}, expected {e_arr.dtype} "
                    f"(shapes: actual {a_arr.shape}, expected {e_arr.shape})")
    else:
        storage = FORMATS[fmt][0]
        for what, arr in (("actual", a_arr), ("expected", e_arr)):
            if arr.dtype in _RAW_DTYPES:
                if arr.dtype != storage:
                    return f"{prefix}{what} holds {arr.dtype} bits, but {fmt} is stored as {storage}"
            elif arr.dtype not in _VALUE_DTYPES or fmt not in formats_of(arr, what):
                return f"{prefix}{what} is {arr.dtype}, which does not hold {fmt}"
    if a_arr.shape != e_arr.shape:
        return f"{prefix}shapes differ: actual {a_arr.shape}, expected {e_arr.shape} (dtype {a_arr.dtype})"
    return None


def assert_bitexact(actual, expected, *, format: str | None = None, max_report: int = 10, msg: str = "",
                    accumulators=None) -> None:
    """Raises AssertionError with the compare report unless actual and expected have the
    same bits everywhere (tf32, format="tf32": the 19 bits the tensor core reads). A different
    shape or dtype is a difference too (AssertionError saying which). Arrays of any tensor-core
    dtype, DLPack/__array__ objects (torch CPU tensors), or raw uint bits with format=...
    accumulators=(kernel_acc, oracle_acc): the accumulators must have the same bits as well; the
    message then starts with the verdict, e.g. "passes on D, fails on the accumulator"."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's
    fmt = None if format is None else format_name(format)
    kind = _mismatch_of_kind(actual, expected, fmt, msg)
    if kind is None and accumulators is not None:
        acc_kind = _mismatch_of_kind(*_accumulator_pair(accumulators), None, "")
        kind = None if acc_kind is None else (msg + "\n" if msg else "") + "accumulators: " + acc_kind
    if kind is not None:
        raise AssertionError(kind)
    report = compare(actual, expected, format=fmt, max_report=max_report, accumulators=accumulators)
    if not report:
        raise AssertionError((msg + "\n" if msg else "") + str(report))


def assert_close_ulps(actual, expected, ulps: int, *, any_nan: bool = False, any_zero_sign: bool = False,
                      format: str | None = None, max_report: int = 10, msg: str = "") -> None:
    """For kernels not meant to be bit-exact: finite values at most `ulps` apart. A different
    shape or dtype raises AssertionError, as in assert_bitexact."""
    __tracebackhide__ = True
    fmt = None if format is None else format_name(format)
    kind = _mismatch_of_kind(actual, expected, fmt, msg)
    if kind is not None:
        raise AssertionError(kind)
    report = compare(actual, expected, format=fmt, ulps=ulps, any_nan=any_nan, any_zero_sign=any_zero_sign,
                     max_report=max_report)
    if report.count:
        raise AssertionError((msg + "\n" if msg else "") + str(report))

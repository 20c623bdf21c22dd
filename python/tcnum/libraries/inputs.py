"""Input generator "tcnum-irwin12-v1" of the library corpus (docs/library-corpus.md).

Counter-based: every element of every operand is a pure function of (seed, operand id,
element index), so a replay can regenerate any row or column of a recorded call's inputs
without the others, and a GPU kernel (tools/libraries/capture_torch.py) gives the same
values as this numpy code. Needs numpy and ml_dtypes only; it imports nothing of tcnum's
compiled module, so it can be loaded by file path.

    draw(seed, id, e, d) = mix(base(seed, id) + (4*e + d + 1) * GOLDEN)          (mod 2**64)
    base(seed, id)       = (seed * GOLDEN) ^ (id * 0xD1B54A32D192ED03)           (mod 2**64)
    mix                  = splitmix64's finaliser
    normal  x = (sum of the twelve 16-bit fields of draws d = 0, 1, 2 - 393210) / 65536
    wide    x = normal * 2**t,  t = draw(d = 3) mod (2E + 1) - E

x is a float32 exactly; ``to_dtype`` rounds it to the operand's type (round to nearest even).
"""

import numpy as np

GENERATOR = "tcnum-irwin12-v1"
MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
OPERAND_MUL = 0xD1B54A32D192ED03
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
OFFSET = 393210  # 12 * 32767.5 * 2 / 2: the mean of the sum of twelve 16-bit fields
OPERAND_IDS = {"A": 1, "B": 2, "bias": 3}
E_MAX = 100  # |x| * 2**t stays an exact, normal float32 for 0 <= E <= 100

# The E used per operand dtype for dist "wide" (no value overflows the type: |normal| < 6).
WIDE_E = {"f32": 16, "tf32": 16, "bf16": 16, "f16": 8, "e5m2": 8, "e4m3": 4}


# ---------------------------------------------------------------- the pure-Python reference

def mix_reference(z):
    """splitmix64's finaliser on a Python int (mod 2**64)."""
    z &= MASK
    z = ((z ^ (z >> 30)) * MIX1) & MASK
    z = ((z ^ (z >> 27)) * MIX2) & MASK
    return z ^ (z >> 31)


def base_reference(seed, operand_id):
    return ((seed * GOLDEN) ^ (operand_id * OPERAND_MUL)) & MASK


def draw_reference(seed, operand_id, e, d):
    """The 64-bit draw d (0..3) of element e of operand operand_id, in plain int arithmetic."""
    return mix_reference(base_reference(seed, operand_id) + (4 * e + d + 1) * GOLDEN)


def value_reference(seed, operand_id, e, dist="normal", E=0):
    """Element e's float value (a Python float, exact) by the reference arithmetic."""
    s = 0
    for d in range(3):
        z = draw_reference(seed, operand_id, e, d)
        s += sum((z >> (16 * f)) & 0xFFFF for f in range(4))
    x = (s - OFFSET) / 65536.0
    if dist == "wide":
        t = draw_reference(seed, operand_id, e, 3) % (2 * E + 1) - E
        x = x * 2.0 ** t
    elif dist != "normal":
        raise ValueError(f"dist must be 'normal' or 'wide', not {dist!r}")
    return x


# ---------------------------------------------------------------- numpy (vectorised, uint64)

def _u64(v):
    return np.uint64(v & MASK)


def _mix(z):
    """splitmix64's finaliser on a uint64 ndarray (numpy's uint64 arithmetic wraps mod 2**64)."""
    z = (z ^ (z >> np.uint64(30))) * _u64(MIX1)
    z = (z ^ (z >> np.uint64(27))) * _u64(MIX2)
    return z ^ (z >> np.uint64(31))


def draws(seed, operand_id, e, d):
    """uint64 draws d for a uint64 ndarray of element indices e."""
    e = np.asarray(e, dtype=np.uint64)
    base = _u64(base_reference(seed, operand_id))
    return _mix(base + (e * np.uint64(4) + np.uint64(d + 1)) * _u64(GOLDEN))


def _fields_sum(z):
    m = np.uint64(0xFFFF)
    return (z & m) + ((z >> np.uint64(16)) & m) + ((z >> np.uint64(32)) & m) + (z >> np.uint64(48))


def values_at(seed, operand_id, e, dist="normal", E=0):
    """float32 values of the elements with indices e (any shape)."""
    _check(dist, E)
    e = np.asarray(e, dtype=np.uint64)
    s = _fields_sum(draws(seed, operand_id, e, 0))
    s += _fields_sum(draws(seed, operand_id, e, 1))
    s += _fields_sum(draws(seed, operand_id, e, 2))
    x = (s.astype(np.int64) - OFFSET).astype(np.float32) / np.float32(65536.0)  # exact: |s - OFFSET| < 2**20
    if dist == "wide" and E > 0:
        t = (draws(seed, operand_id, e, 3) % np.uint64(2 * E + 1)).astype(np.int32) - np.int32(E)
        x = np.ldexp(x, t).astype(np.float32)
    return x


def values(seed, operand_id, rows, cols, dist="normal", E=0, row_idx=None, col_idx=None, chunk=1 << 22):
    """The logical rows x cols matrix of operand operand_id (1 = A, 2 = B, 3 = bias) as float32,
    element (i, j) having index e = i * cols + j (row-major). With row_idx and/or col_idx, only
    those rows / columns are generated (shape len(row_idx) x len(col_idx)). A bias is a 1 x N
    matrix. Works in chunks of about `chunk` elements."""
    operand_id = OPERAND_IDS.get(operand_id, operand_id)
    r = np.arange(rows, dtype=np.uint64) if row_idx is None else np.asarray(row_idx, dtype=np.int64)
    c = np.arange(cols, dtype=np.uint64) if col_idx is None else np.asarray(col_idx, dtype=np.int64)
    for idx, n, what in ((r, rows, "row"), (c, cols, "column")):
        if idx.ndim != 1 or (idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n)):
            raise ValueError(f"{what} indices must be a 1-D list within [0, {n})")
    r, c = r.astype(np.uint64), c.astype(np.uint64)
    out = np.empty((r.size, c.size), dtype=np.float32)
    step = max(1, chunk // max(1, c.size))
    for i0 in range(0, r.size, step):
        e = r[i0:i0 + step, None] * np.uint64(cols) + c[None, :]
        out[i0:i0 + step] = values_at(seed, operand_id, e, dist, E)
    return out


def _check(dist, E):
    if dist not in ("normal", "wide"):
        raise ValueError(f"dist must be 'normal' or 'wide', not {dist!r}")
    if not (0 <= int(E) <= E_MAX):
        raise ValueError(f"E must be within 0..{E_MAX}")


# ---------------------------------------------------------------- rounding to the operand type

def _ml_dtype(name):
    import ml_dtypes
    table = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "e4m3": ml_dtypes.float8_e4m3fn,
             "e5m2": ml_dtypes.float8_e5m2, "f32": np.float32, "tf32": np.float32}
    if name not in table:
        raise ValueError(f"dtype must be one of {sorted(table)}, not {name!r}")
    return table[name]


def to_dtype(x, dtype_name):
    """x (float32) rounded to nearest even into bf16, f16, e4m3 (float8_e4m3fn) or e5m2; f32 and
    tf32 return the float32 values unchanged (for tf32 the library rounds them itself)."""
    x = np.asarray(x, dtype=np.float32)
    with np.errstate(over="ignore"):  # beyond the format's range: ±inf, as the GPU's conversion gives
        return x.astype(_ml_dtype(dtype_name))

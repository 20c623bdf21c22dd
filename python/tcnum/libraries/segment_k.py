"""cuBLAS's TF32 segment-K kernels (`sm90_xmma_gemm_*tf32*_execute_segment_k_on_kernel`) as
schedules with regions (docs/libraries.md, "Segment-K").

Revealed on an H100 with designed inputs (tools/libraries/capture_segment_k.py) and checked on
random ones: the kernel runs G workers. Output tiles (TM x TN, the kernel name's tile size) are
taken in waves of G in the kernel's order: blocks of W tile columns, the rows of a block in
ascending order in even blocks and descending in odd ones. The tiles of the last, partial wave
(L = T mod G of them; all T when T < G) are each cut along K into S segments of whole k-tiles
(the remainder one k-tile each on the last segments), S = G // L; every segment is a chain from
zero, and the partials are added in a pairwise tree taken from the last segment back. The other
tiles are one chain each. G, W come from the launch (G = 132 or 120 on the H100, by cluster
shape): the planner tries them; cuBLASLt's logged workspace (L x S tiles of fp32 partials)
says L x S where it was recorded.
"""

from __future__ import annotations

import dataclasses
import re

from .._schedule import Schedule
from .trees import left_deep, pairwise

WORKERS = (120, 132, 66, 128, 60)  # G: what the H100 runs, most frequent first
WIDTHS = (2, 4, 8, 1, 16, -2, -4, -8, -16)  # W: tile columns per raster block (negative: tile rows)


def tile_shape(kernel: str) -> tuple[int, int] | None:
    m = re.search(r"tilesize(\d+)x(\d+)x\d+", kernel)
    return (int(m.group(1)), int(m.group(2))) if m else None


def tile_order(mt: int, nt: int, width: int) -> list[tuple[int, int]]:
    """Output tiles in the kernel's order: blocks of `width` tile columns, rows serpentine; a
    negative width: blocks of -width tile rows, columns serpentine (the raster along M)."""
    if width < 0:
        return [(r, c) for c, r in tile_order(nt, mt, -width)]
    order = []
    for block, c0 in enumerate(range(0, nt, width)):
        rows = range(mt) if block % 2 == 0 else range(mt - 1, -1, -1)
        order += [(r, c) for r in rows for c in range(c0, min(nt, c0 + width))]
    return order


def segment_bounds(k: int, tile_k: int, segments: int) -> tuple[int, ...]:
    """S segments of whole k-tiles, the remainder one k-tile each on the last segments."""
    tiles = -(-k // tile_k)
    base, extra = divmod(tiles, segments)
    bounds = [0]
    for i in range(segments):
        bounds.append(min(k, bounds[-1] + (base + (1 if i >= segments - extra else 0)) * tile_k))
    return tuple(bounds)


def from_the_end(segments: int):
    """Pairs of neighbouring partials, level by level, taken from the last segment back."""
    return pairwise(list(range(segments))[::-1])


def sequential_from_the_end(segments: int):
    """(((p[S-1] + p[S-2]) + p[S-3]) + ...) + p0: the segments' partials added one by one from the
    last back, as the separate `..._execute_split_k_kernel` that can follow a segment-K kernel does
    (H100: 381 x 172 x 38544, 9 tiles in 13 segments, 64 of 64; the pairwise tree 22)."""
    return left_deep(list(range(segments))[::-1])


def _rectangles(tiles: list[tuple[int, int]], tm: int, tn: int, m: int, n: int) -> list:
    """Tiles as few D rectangles: each row's run of adjacent tile columns, then equal runs of
    adjacent rows joined."""
    runs = []
    for r, c in sorted(tiles):
        rows, cols = (r * tm, min(m, r * tm + tm)), (c * tn, min(n, c * tn + tn))
        if runs and runs[-1][0] == rows and runs[-1][1][1] == cols[0]:
            runs[-1] = (rows, (runs[-1][1][0], cols[1]))
        else:
            runs.append((rows, cols))
    rects = []
    for rows, cols in sorted(runs, key=lambda x: (x[1], x[0])):
        if rects and rects[-1][1] == cols and rects[-1][0][1] == rows[0]:
            rects[-1] = ((rects[-1][0][0], rows[1]), cols)
        else:
            rects.append((rows, cols))
    return sorted(rects)


def schedule(base: Schedule, m: int, n: int, k: int, tile: tuple[int, int], workers: int, width: int,
             segments: int | None = None, last: int | None = None, tree=from_the_end) -> Schedule | None:
    """The segment-K schedule: `base` (one chain) outside the split tiles (the last L in the
    kernel's order: the partial wave of G workers unless given), S segments inside. None where
    nothing is split (S < 2)."""
    tm, tn = tile
    mt, nt = -(-m // tm), -(-n // tn)
    total = mt * nt
    if last is None:
        last = total % workers if total >= workers else total
    if last == 0 or last > total:
        return None
    s = segments or workers // last
    tile_k = base.tile_k
    if s < 2 or s > -(-k // tile_k):
        return None
    split = dataclasses.replace(base, slice_bounds=segment_bounds(k, tile_k, s), reduction_tree=tree(s))
    rects = _rectangles(tile_order(mt, nt, width)[total - last:], tm, tn, m, n)
    note = f"{base.note}; segment-K G={workers} W={width} L={last} S={s}"
    return dataclasses.replace(base, note=note, regions=tuple((r, c, split) for r, c in rects))


def logged_units(call: dict, tile: tuple[int, int]) -> int | None:
    """L x S from cuBLASLt's logged workspace (fp32 partial tiles), where it was logged."""
    for e in call.get("cublaslt") or []:
        if isinstance(e, dict) and isinstance(e.get("workspace_bytes"), int) and e.get("num_splits_k") == -1:
            return e["workspace_bytes"] // (tile[0] * tile[1] * 4)
    return None


def candidates(base: Schedule, call: dict, kernel: str):
    """Segment-K schedules in the order to try them: the logged L x S first, then every
    worker count and raster width (and, where every tile is split, every S of 2..16)."""
    tile = tile_shape(kernel)
    if tile is None:
        return
    # A separate split-K kernel after the segment-K kernel adds the segments in order from the last.
    tree = sequential_from_the_end if any("execute_split_k_kernel" in x for x in call["kernels"]) else from_the_end
    m, n, k = call["m"], call["n"], call["k"]
    units = logged_units(call, tile)
    tiles = [tile, tile[::-1]]
    seen = set()
    for t in tiles:
        total = -(-m // t[0]) * -(-n // t[1])
        for g in WORKERS:
            last = total % g if total >= g else total
            options = [None] + (list(range(2, 17)) if total < g else [])
            if units and last and units % last == 0:
                options = [units // last] + options
            for s in options:
                for w in WIDTHS:
                    sched = schedule(base, m, n, k, t, g, w, s, tree=tree)
                    if sched is not None and sched not in seen:
                        seen.add(sched)
                        yield sched
        # The logged L x S read as any split of it: the last L tiles in S segments.
        for s in range(2, 17) if units else ():
            for w in WIDTHS:
                sched = schedule(base, m, n, k, t, 0, w, s, units // s, tree=tree) if units % s == 0 else None
                if sched is not None and sched not in seen:
                    seen.add(sched)
                    yield sched
    # Near the rule (H100, unlogged calls): one segment fewer than G // L (grid-llm tf32
    # 128 x 8192 x 3072: L = 8 tiles in 14 segments, not 15), or a few tiles fewer split than
    # T mod G, each in G // L' segments (tf32 1575 x 1292 x 6584: 19-21 tiles of the W = 8 order in
    # 5 segments, not 23 = 143 mod 120). Why cuBLAS chose so is not known: revealed, never a rule.
    for t in tiles:
        total = -(-m // t[0]) * -(-n // t[1])
        for g in WORKERS:
            last = total % g if total >= g else total
            near = [(last, g // last - 1)] if last else []
            near += [(lo, g // lo) for lo in range(last - 1, max(0, last - 5), -1)]
            for (lo, s), w in ((x, w) for x in near for w in WIDTHS):
                sched = schedule(base, m, n, k, t, g, w, s, lo, tree=tree) if lo > 0 and s >= 2 else None
                if sched is not None and sched not in seen:
                    seen.add(sched)
                    yield sched

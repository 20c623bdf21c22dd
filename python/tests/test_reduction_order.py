"""The designed-input reading of a reduction order (tools/libraries/capture_reduction_order.py and
reduction_tree_from_pairs.py) recovers summation trees hidden in CPU black boxes."""

import random

import numpy as np
import pytest

from conftest import load_tool

capture = load_tool("capture_reduction_order")
reading = load_tool("reduction_tree_from_pairs")
TILE = 4


def _random_tree(terms, rng):
    nodes = list(range(terms))
    while len(nodes) > 1:
        i, j = rng.sample(range(len(nodes)), 2)
        merged = (nodes[i], nodes[j])
        nodes = [x for t, x in enumerate(nodes) if t not in (i, j)] + [merged]
    return nodes[0]


def _sum(tree, values):
    if isinstance(tree, int):
        return values[tree]
    return np.float32(_sum(tree[0], values) + _sum(tree[1], values))


def _black_box_capture(tree, m, n, terms):
    """What the GPU script records for a kernel that adds bias and slice partials by `tree`: the
    partial of slice t is its one nonzero product, A[i, (t-1)·TILE]·B[(t-1)·TILE, j]."""
    runs = []
    for r in range(terms * (terms - 1)):
        a, b, bias = capture.designed_arrays(m, n, TILE * terms, r, terms, TILE)
        out = np.empty((m, n), np.float32)
        for i in range(m):
            for j in range(n):
                terms_ij = [bias[j]] + [np.float32(a[i, (t - 1) * TILE] * b[(t - 1) * TILE, j]) for t in range(1, terms)]
                out[i, j] = _sum(tree, terms_ij)
        runs.append(capture.counts(out))
    return np.stack(runs)


def _named(tree):
    return reading.name(tree) if isinstance(tree, int) else (_named(tree[0]), _named(tree[1]))


@pytest.mark.parametrize("seed", range(6))
def test_a_hidden_tree_is_recovered_for_every_element(seed):
    rng = random.Random(seed)
    terms = rng.choice([3, 5, 7])
    tree = _random_tree(terms, rng)
    pairs = _black_box_capture(tree, 5, 9, terms)
    want = reading.lca_sizes_of(_named(tree), terms)
    for i in range(5):
        for j in range(9):
            sizes = reading.pair_sizes(pairs, i, j, terms)
            assert sizes == want
            got = reading.tree_of(sizes, terms)
            assert got is not None and reading.lca_sizes_of(got, terms) == want


def test_the_h100_tree_reads_as_documented(tmp_path):
    tree = (((((1, 4), 6), (2, 5)), 3), 0)  # ((((p0 + p3) + p5) + (p1 + p4)) + p2) + bias
    pairs = _black_box_capture(tree, 3, 8, 7)
    meta = '{"terms": 7, "tile": 4}'
    path = tmp_path / "capture.npz"
    np.savez(path, **{"x:pairs": pairs, "x:meta": np.array(meta), "x:hashes": np.array(["a", "a"])})
    sizes = reading.pair_sizes(pairs, 1, 2, 7)
    assert reading.text(reading.tree_of(sizes, 7)) == "(((((p0 + p3) + p5) + (p1 + p4)) + p2) + bias)"
    assert reading.main([str(path)]) == 0


def test_values_that_are_no_count_are_not_read_as_a_tree(tmp_path):
    pairs = _black_box_capture(((0, 1), 2), 2, 3, 3)
    pairs[0, 0, 0] = -32768  # not a small integer: the element has no tree
    path = tmp_path / "capture.npz"
    np.savez(path, **{"x:pairs": pairs, "x:meta": np.array('{"terms": 3}'), "x:hashes": np.array(["a"])})
    assert reading.main([str(path)]) == 1
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    assert reading.main([str(bad)]) == 2

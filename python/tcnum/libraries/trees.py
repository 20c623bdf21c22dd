"""Reduction trees as Schedule.reduction_tree takes them (nested pairs of slice indices)."""

from __future__ import annotations


def pairwise(nodes: list):
    """Pairs of neighbouring nodes, level by level (tl.sum's tree; an odd last node goes up alone)."""
    while len(nodes) > 1:
        nodes = [(nodes[i], nodes[i + 1]) if i + 1 < len(nodes) else nodes[i] for i in range(0, len(nodes), 2)]
    return nodes[0]


def left_deep(leaves: list):
    """((leaf0 + leaf1) + leaf2) + ...: the sequential sum."""
    tree = leaves[0]
    for leaf in leaves[1:]:
        tree = (tree, leaf)
    return tree


def butterfly(n: int, bit_order: tuple[int, ...]):
    """The tree of a reduction over n = 2^b partials whose index bits are combined one per level,
    bit_order[0] first (a reduction across lanes and warps: each shuffle or shared-memory step
    adds the partials that differ in one index bit). bit_order (0, 1, 2, ...) is pairwise(range(n))."""
    bits = n.bit_length() - 1
    if n < 1 or 1 << bits != n or sorted(bit_order) != list(range(bits)):
        raise ValueError(f"butterfly: n = {n} must be a power of two and bit_order a permutation of 0..{bits - 1}")

    def build(value: int, order: tuple[int, ...]):  # the partials value + (any of the bits in order)
        if not order:
            return value
        top = order[-1]  # combined last: the tree's root adds the two halves that differ in it
        return (build(value, order[:-1]), build(value | 1 << top, order[:-1]))

    return build(0, tuple(bit_order))

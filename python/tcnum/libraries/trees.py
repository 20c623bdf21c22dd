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

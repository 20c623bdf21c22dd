#!/usr/bin/env python3
"""The summation tree of each call captured by capture_reduction_order.py, per output element.

    python3 tools/libraries/reduction_tree_from_pairs.py order.npz

In a designed run an element's output counts the terms added after its two markers met, so
TERMS - output is the size of the smallest subtree that holds both (FPRev's reading). Over the
runs every element sees every pair of terms; those sizes determine the tree (an ultrametric:
clusters merge in order of size). Prints, per call, how many elements share each tree, in the
notation of docs/libraries.md (term 0 = "bias", term t = "p{t-1}", the slice whose first k-tile
is k-tile t - 1), and the elements no tree explains (a pair's value not a count, or sizes that
are no tree). Exit status 0 when every element of every call has a tree, 1 otherwise, 2 on a
file that is not such a capture.
"""

import argparse
import collections
import json
import sys

import numpy as np


def pair_sizes(pairs, i, j, terms):
    """{frozenset((u, v)): subtree size} for element (i, j), or None where a value is no count."""
    slices, sizes = terms - 1, {}
    for r in range(pairs.shape[0]):
        x, y = 1 + (i + r) % slices, (j + r // slices) % terms
        if x == y:
            continue
        v = int(pairs[r, i, j])
        if not 0 <= v <= terms - 2:
            return None
        sizes[frozenset((x, y))] = terms - v
    return sizes if len(sizes) == terms * (terms - 1) // 2 else None


def name(t):
    return "bias" if t == 0 else f"p{t - 1}"


def tree_of(sizes, terms):
    """The nested tree the pair sizes describe, or None where they describe none."""
    nodes = {t: (name(t), {t}) for t in range(terms)}  # cluster id -> (tree, leaves)
    for size in sorted(set(sizes.values())):
        for pair, s in sizes.items():
            if s != size:
                continue
            u, v = tuple(pair)
            cu = next(c for c, (_, leaves) in nodes.items() if u in leaves)
            cv = next(c for c, (_, leaves) in nodes.items() if v in leaves)
            if cu == cv:
                continue
            (tu, lu), (tv, lv) = nodes.pop(cu), nodes.pop(cv)
            if len(lu) + len(lv) != size:
                return None
            first, second = sorted([(tu, lu), (tv, lv)], key=lambda n: (-len(n[1]), min(n[1])))
            nodes[min(cu, cv)] = ((first[0], second[0]), lu | lv)
    if len(nodes) != 1:
        return None
    tree = next(iter(nodes.values()))[0]
    return tree if lca_sizes_of(tree, terms) == sizes else None


def lca_sizes_of(tree, terms):
    """{frozenset((u, v)): size of the smallest subtree of `tree` holding terms u and v}."""
    return {frozenset((u, v)): _lca_size(tree, name(u), name(v)) for u in range(terms) for v in range(u + 1, terms)}


def _leaves(tree):
    return {tree} if isinstance(tree, str) else _leaves(tree[0]) | _leaves(tree[1])


def _lca_size(tree, u, v):
    for child in ([] if isinstance(tree, str) else tree):
        leaves = _leaves(child)
        if u in leaves and v in leaves:
            return _lca_size(child, u, v)
    return len(_leaves(tree))


def text(tree):
    return tree if isinstance(tree, str) else f"({text(tree[0])} + {text(tree[1])})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("capture", help="npz written by capture_reduction_order.py")
    args = ap.parse_args(argv)
    try:
        z = np.load(args.capture)
        calls = sorted({k.rsplit(":", 1)[0] for k in z.files if k.endswith(":pairs")})
        metas = {c: json.loads(str(z[c + ":meta"])) for c in calls}
    except (OSError, ValueError, KeyError) as e:
        print(f"reduction_tree_from_pairs: {args.capture}: not a capture ({e})", file=sys.stderr)
        return 2
    unexplained = 0
    for call in calls:
        pairs, terms = z[call + ":pairs"], metas[call]["terms"]
        trees = collections.Counter()
        for i in range(pairs.shape[1]):
            for j in range(pairs.shape[2]):
                sizes = pair_sizes(pairs, i, j, terms)
                trees[text(tree_of(sizes, terms)) if sizes else None] += 1
        unexplained += trees.pop(None, 0) + trees.pop("None", 0)
        hashes = z[call + ":hashes"]
        print(f"{call}: {pairs.shape[1]} x {pairs.shape[2]} elements, {len(set(hashes.tolist()))} distinct outputs in "
              f"{len(hashes)} runs")
        for tree, count in trees.most_common():
            print(f"  {count} elements: {tree}")
    print(f"{len(calls)} calls; {unexplained} elements without a tree")
    return 0 if unexplained == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

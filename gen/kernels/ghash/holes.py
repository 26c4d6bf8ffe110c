"""Hole-field bounds of the Cortex-M4 ctmul GHASH: what a sequence of UMULL/UMLAL products and
class masks can put in one hole field, proven for any data (worst case: every class bit set).

Moved out of ``thumb2.py`` (issue 34, part 6) so that the within-block chains there and the
cross-block chains of ``m4_cross.py`` share one proof.  A field of class c is bits n..n+3 of a
64-bit sum (n = c mod 4); it stays exact while its count is <= 15 (``HOLE_LIMIT``).
The model behind the holes: docs/internals/ghash.md.
"""
from __future__ import annotations

import functools
import itertools
from typing import Dict, List, Sequence, Tuple

from . import model as M

HOLE_BITS = 32 // M.HOLE_STRIDE          # bits of one class in a 32-bit word
HOLE_LIMIT = (1 << M.HOLE_STRIDE) - 1     # the largest count a hole field holds
#: instructions of a mask step by the words it masks (lo = 0, hi = 1)
MASK_COST = {(): 0, (0,): 1, (1,): 1, (0, 1): 2}


@functools.lru_cache(maxsize=None)
def profile(j: int, k: int) -> Dict[int, int]:
    """Worst-case count of partial products per bit of a_j * b_k (all class bits set).
    Cached: callers read it, never change it."""
    out: Dict[int, int] = {}
    for s, t in itertools.product(range(HOLE_BITS), repeat=2):
        p = j + k + M.HOLE_STRIDE * (s + t)
        out[p] = out.get(p, 0) + 1
    return out


@functools.lru_cache(maxsize=None)
def _mask_cap(n: int, mask: Tuple[int, ...]):
    """The bound field n keeps after masking the words ``mask``: 1 (its parity) plus the weight of
    its upper bits in unmasked words, or None when no upper bit of it is in a masked word."""
    upper = [i for i in range(1, M.HOLE_STRIDE) if n + i < 64]
    kept = [i for i in upper if (n + i) // 32 not in mask]
    return None if kept == upper else 1 + sum(1 << i for i in kept)


def apply_mask(bound: Dict[int, int], mask: Tuple[int, ...]) -> Dict[int, int]:
    """Field bounds after ANDing the words ``mask`` (0 = lo, 1 = hi) with the class mask: the
    field keeps its lowest bit (the parity) and the weight of its upper bits in unmasked words."""
    if not mask:
        return bound
    out = dict(bound)
    for n in out:
        cap = _mask_cap(n, tuple(mask))
        if cap is not None:
            out[n] = min(out[n], cap)
    return out


def add_products(bound: Dict[int, int], prods: Sequence[Tuple[int, int]]) -> Dict[int, int]:
    """Field bounds after adding (UMULL/UMLAL) the products a_j * b_k of ``prods``."""
    out = dict(bound)
    for j, k in prods:
        for n, cnt in profile(j, k).items():
            if n in out:
                out[n] += cnt
    return out


def chain_bounds(c: int, groups: Sequence[Sequence[Tuple[int, int]]],
                 masks: Sequence[Tuple[int, ...]]) -> List[Dict[int, int]]:
    """Upper bounds of the hole fields of class c (field n: bits n..n+3 of the 64-bit sum,
    n = c mod 4) after each group of a chain; ``masks[i]``: the words (0 = lo, 1 = hi)
    ANDed with the class mask before group i + 1.  A mask keeps every field's lowest bit
    (the parity) and clears the field's upper bits that lie in a masked word, so a field
    whose upper bits are all in masked words drops to <= 1, one that straddles bit 32 keeps
    the weight of its bits in the unmasked word.  Sound for any data: counts are at most
    the all-ones counts (``profile``) and masking only clears bits."""
    bound = {n: 0 for n in range(c, 64, M.HOLE_STRIDE)}
    out = []
    for gi, g in enumerate(groups):
        if gi:
            bound = apply_mask(bound, masks[gi - 1])
        bound = add_products(bound, g)
        out.append(dict(bound))
    return out


def chain_fits(c: int, groups, masks) -> bool:
    """True when no hole field of the chain can exceed HOLE_LIMIT (no carry leaves a field)."""
    return all(max(b.values()) <= HOLE_LIMIT for b in chain_bounds(c, groups, masks))




# --------------------------------------------------------------------------- cross-block chains

def cross_products(c: int, orders: Sequence[Sequence[int]]) -> List[Tuple[int, int]]:
    """The products of class c in the order ``m4_cross`` issues them: block by block
    (``orders[i]``: block i's y-class order), product a_j * b_(c - j mod 4) for each j."""
    return [(j, (c - j) % M.HOLE_STRIDE) for order in orders for j in order]


Layer = Dict[tuple, tuple]          # field-bound vector -> (mask instructions, parent vector, mask)


def chain_start(c: int) -> Layer:
    """The layer before a class's first product (every field 0)."""
    return {tuple(0 for _ in range(c, 64, M.HOLE_STRIDE)): (0, None, ())}


def chain_step(c: int, layer: Layer, prod: Tuple[int, int], first: bool = False) -> Layer:
    """One product more on every bound vector of ``layer``, each mask choice before it (none,
    lo, hi, both; none for the ``first`` product): the cheapest way to each vector that keeps
    every field <= HOLE_LIMIT, without vectors another reaches no dearer with every field no
    higher (a lower bound never needs more masks later: masking and adding are monotone)."""
    F = tuple(range(c, 64, M.HOLE_STRIDE))
    new: Layer = {}
    for vec, (cost, _, _) in layer.items():
        for mask, mc in MASK_COST.items():
            if first and mask:
                continue
            b = add_products(apply_mask(dict(zip(F, vec)), mask), [prod])
            if max(b.values()) > HOLE_LIMIT:
                continue
            key = tuple(b[n] for n in F)
            if key not in new or cost + mc < new[key][0]:
                new[key] = (cost + mc, vec, mask)
    kept: Layer = {}
    for key, val in sorted(new.items(), key=lambda kv: (kv[1][0], kv[0])):
        if not any(v[0] <= val[0] and all(x <= y for x, y in zip(k, key)) for k, v in kept.items()):
            kept[key] = val
    return kept


def layer_cost(layer: Layer) -> int:
    return min(v[0] for v in layer.values())


@functools.lru_cache(maxsize=None)
def cross_chain(c: int, orders: Tuple[Tuple[int, ...], ...]) -> Tuple[int, Tuple[Tuple[int, ...], ...]]:
    """(mask instructions, masks) of the cheapest chain of class c over the blocks of
    ``cross_products(c, orders)``: one product a group, ``masks[i]`` the words masked before
    product i + 1.  Exact over the field bounds of ``chain_bounds`` (dynamic programming over
    the bound vectors after each product, ``chain_step``).  Deterministic."""
    prods = cross_products(c, orders)
    layers = [chain_step(c, chain_start(c), prods[0], first=True)]
    for prod in prods[1:]:
        layers.append(chain_step(c, layers[-1], prod))
    last = layers[-1]
    key = min(last, key=lambda k: (last[k][0], k))
    cost, masks = last[key][0], []
    for lay in reversed(layers[1:]):
        _, parent, mask = lay[key]
        masks.append(mask)
        key = parent
    return cost, tuple(reversed(masks))
